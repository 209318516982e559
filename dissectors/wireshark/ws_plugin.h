/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ws_plugin.h - what the files of the Wireshark plugin share.
 */
#ifndef ROCESHARK_WS_PLUGIN_H
#define ROCESHARK_WS_PLUGIN_H

#include <roceshark/analysis.h>

extern int proto_roceshark;
extern int roceshark_tap;

void proto_register_roceshark(void);
void proto_reg_handoff_roceshark(void);

/* The analyzer of the capture being dissected (NULL with analysis off). */
const struct rs_analyzer *roceshark_analyzer(void);

/* "RDMA QP conversations": Statistics menu and `tshark -z roceshark,qp`. */
void roceshark_register_qp_table(void);

#endif /* ROCESHARK_WS_PLUGIN_H */
