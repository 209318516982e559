/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ws_plugin.h - what the files of the Wireshark plugin share.
 */
#ifndef ROCESHARK_WS_PLUGIN_H
#define ROCESHARK_WS_PLUGIN_H

#include <epan/packet_info.h>

#include <roceshark/dissectors/analysis.h>

extern int proto_roceshark;
extern int roceshark_tap;

void proto_register_roceshark(void);
void proto_reg_handoff_roceshark(void);

/* The analyzer of the capture being dissected (NULL with analysis off). */
const struct rs_analyzer *roceshark_analyzer(void);

/* What the roceshark tap gives its listeners for each frame of a
 * conversation: the first pass's facts, and what a table counts with them. */
struct roceshark_tap_frame {
    struct rs_facts facts;
    uint8_t opcode;             /* the BTH opcode */
    uint32_t wire_len;          /* the frame's length on the wire */
    struct rs_time when;
};

/* What the first pass found about the frame being dissected (NULL when it
 * carries nothing of ours or was not analysed). */
const struct roceshark_tap_frame *roceshark_frame_facts(packet_info *pinfo);

/* The links from a request to its response and ACK (links.c): register makes the
 * capture file's tables; note tells them each frame's facts on the first pass, in
 * frame order, and adds the links to the kept facts of the requests it answers. */
void roceshark_links_register(void);
void roceshark_links_note(guint32 number, uint8_t opcode, struct rs_facts *facts);

/* "RDMA QP Conversations": Statistics > RDMA QP Conversations and `tshark -z roceshark,qp`. */
void roceshark_register_qp_table(void);

/* The roceshark tab of Statistics > Conversations (`tshark -z conv,roceshark`)
 * and Conversation Filter > RDMA QP. */
void roceshark_register_conversations(void);

#endif /* ROCESHARK_WS_PLUGIN_H */
