/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * read_heuristic_names.c - the name of every heuristic dissector tshark 4.0 registers, in
 * byte order: --disable-heuristic and --enable-heuristic take one of them, as tshark's do,
 * and refuse another as tshark does ("No such protocol rpcordma, can't disable"). Two of
 * them are heuristics of ours too (iwarp_mpa_tcp, eth_over_ib: read_heuristic_switch() in
 * read_prefs.c); another name taken changes nothing, as we decode none of those protocols.
 *
 * The list is interface data, as the protocols' names are: scripts/gen_heuristic_names.sh
 * writes this file again from the installed tshark (4.0.17: 363 names).
 */
#include <stdlib.h>
#include <string.h>

#include "read_int.h"

static const char *const heuristic_names[] = {
    "6lowpan_wlan", "a615a", "acn", "adwin_config_tcp", "adwin_config_udp",
    "aerohive_info_dhcp", "aeron_udp", "aim_tls", "alcatel_lucent_dhcp", "apple_bsdp_dhcp",
    "apple_bsdp_info_dhcp", "applemidi_udp", "ar_drone_udp", "artnet_udp", "aruba_ap_dhcp",
    "aruba_instant_ap_dhcp", "asphodel_inquiry", "at_usb_bulk", "at_usb_control",
    "atn-cm-ulcs", "atn-cpdlc-ulcs", "atn-ucls_cotp", "autosar_nm_can_heur", "bfcp_tcp",
    "bfcp_udp", "bitcoin_tcp", "bittorrent_dht_udp", "bittorrent_tcp", "blf_wtap",
    "bssap_sccp", "bssap_sua", "bt_utp_udp", "btsnoop_wtap", "cablelabs_dhcp", "caneth_udp",
    "carp_ip", "cattp_udp", "cbor_bpv7", "cco_cip", "ceph_tcp", "cigi_udp", "cimd_tcp",
    "cisco_info_dhcp", "classicstun_tcp", "classicstun_udp", "clique_rm_udp", "clses_cotp",
    "cltp_udp", "credssp_tls", "credssp_tpkt", "ctdb_tcp", "dcc_udp", "dcerpc_http",
    "dcerpc_netbios", "dcerpc_smb2", "dcerpc_smb_transact", "dcerpc_tcp", "dcerpc_udp",
    "dcp_etsi_udp", "diameter_tcp", "dicom_tcp", "dnp3_tcp", "dnp3_udp", "dns_udp",
    "dplay_tcp", "dplay_udp", "drbd_rdma", "drbd_tcp", "drda_tcp", "dtls_classicstun",
    "dtls_stun", "dtls_udp", "dvb_s2_udp", "e100_udp", "elf_wtap", "esl_eth", "etch_tcp",
    "eth_over_ib", "exablaze_eth", "f5ethtrailer", "f5fileinfo", "fb_zero", "fc_infiniband",
    "fcip_tcp", "fix_tcp", "fix_tls", "fmtp_tcp", "fortinet_sso", "fp_eth", "fp_fp_mux",
    "fp_mux_udp", "fp_udp", "gbcs_zbee_zcl_se.tun", "gelf_udp", "gif_http", "gif_wtap",
    "giop_tcp", "giop_udp", "gmhdr_eth", "gmtrailer_eth", "gquic", "gvsp_udp", "hdcp2_tcp",
    "hi3cclinkdata", "hi_cotp", "hi_cotp_is", "hi_tcp", "hipercontracer_icmp",
    "hipercontracer_icmpv6", "hislip_tcp", "hl7_tcp", "http2_tcp", "http2_tls", "http_tcp",
    "http_tls", "icep_tcp", "icep_udp", "ifcp_tcp", "interlink_udp", "ip_tipc",
    "ip_zbee_zcl_se.tun", "ipdu_multiplexer_can_heur", "ipdu_multiplexer_flexray_heur",
    "ipsec_tcp", "iscsi_tcp", "iser_ib_private", "iser_infiniband", "iwarp_mpa_tcp",
    "ixiatrailer_eth", "jfif_http", "jfif_wtap", "json_acdr", "json_db_lsp", "json_hpfeeds",
    "jxta_sctp", "jxta_tcp", "jxta_udp", "lanforge_tcp", "lanforge_udp", "lbmpdm_tcp",
    "lbmr_udp", "lbmsrs_tcp", "lbtrm_udp", "lbtru_udp", "lbttcp_tcp", "li5g_tls", "lnet_ib",
    "lnet_ib_cm_private", "lsd_udp", "lwm_wlan", "mac_lte_udp", "mac_nr_udp", "mbim_usb_bulk",
    "mcpe_raknet", "mellanox_eoib", "metamako_eth", "miop_udp", "mms_cotp", "mms_cotp_is",
    "mmse_wsp", "mndp_udp", "mojito_udp", "mp2t_udp", "mp2t_usb_bulk", "mpeg_audio",
    "mpeg_pes", "mq_http", "mq_netbios", "mq_tcp", "mq_tls", "mqpcf_mq", "ms_usb_bulk",
    "msrp_tcp", "nano-tcp", "nano-udp", "nas_5gs_udp", "nas_eps_udp", "nbap_sctp", "nbd_tcp",
    "ndmp_tcp", "netperfmeter_dccp", "netperfmeter_tcp", "netperfmeter_udp", "njack_tcp",
    "njack_udp", "nsrpc", "nvme_rdma", "nvme_rdma_cm_private", "obd-ii_can_heur", "ocp1_tcp",
    "ocp1_udp", "openflow_tcp", "opensafety_epl_data", "opensafety_pn_io",
    "opensafety_sercosiii", "openwire_tcp", "osc_udp", "ouch_soupbintcp",
    "packetcable_cm_dhcp", "packetcable_mta_dhcp", "paltalk_tcp", "pana_udp", "pathport_udp",
    "pcap_wtap", "pcapng_wtap", "pdcp_lte_udp", "pdcp_nr_udp", "peekremote_udp", "pktgen_udp",
    "pn_cba_pn_rt", "pn_csf_sdu_pn_rt", "pn_dcp_pn_rt", "pn_frag_pn_rt", "pn_io_pn_rt",
    "pn_mrrt_pn_rt", "pn_ptcp_pn_rt", "png_http", "png_wtap", "ppp_usb_bulk", "proxy_tcp",
    "proxy_udp", "pvfs_tcp", "pxeclient_dhcp", "q931_tcp", "quic", "raknet_udp", "ranap_sccp",
    "ranap_sua", "rdmnet_tcp", "rdmnet_udp", "rdp_cc", "rdp_cr", "rdp_fastpath", "rdpmt_dtls",
    "rdpmt_tls_", "redbackli_udp", "reload_framing_dtls", "reload_framing_tcp",
    "reload_framing_udp", "reload_tcp", "reload_udp", "rep", "rfc7468_wtap", "rftap",
    "rgoose_cltp", "rlc_lte_udp", "rlc_nr_udp", "rlc_udp", "rldp", "rlm_udp", "rmt_norm_udp",
    "rnsap_sccp", "rpc_tcp", "rpc_udp", "rpcap_tcp", "rpcap_udp", "rpcrdma_infiniband",
    "rpcrdma_iwarp", "rrcp", "rtcp_stun", "rtcp_udp", "rtitcp", "rtmpt_tcp",
    "rtp_classicstun", "rtp_rtsp", "rtp_stun", "rtp_udp", "rtps_rtitcp", "rtps_tcp",
    "rtps_udp", "s7comm_cotp", "s7comm_cotp_is", "s_validator_cip", "sdp_ib_private",
    "sdp_infiniband", "ses_cotp", "ses_cotp_is", "shicp_udp", "signal_pdu_can_heur",
    "signal_pdu_dlt_heur", "signal_pdu_flexray_heur", "signal_pdu_uds_heur", "sip_sctp",
    "sip_stun", "sip_tcp", "sip_udp", "skype_udp", "smb1_wsp", "smb2_netbios",
    "smb2_smb_direct", "smb2_wsp", "smb_cotp", "smb_direct_infiniband", "smb_direct_iwarp",
    "smb_netbios", "smb_smb_direct", "smb_vines", "smc_tcp", "smcr_infiniband", "smpp_tcp",
    "smpp_x25", "someip_tcp_heur", "someip_udp_heur", "sparkplugb_mqtt", "spdy_tcp",
    "spice_tcp", "sprt_udp", "srt_udp", "starteam_tcp", "stt_ip", "stun_classicstun",
    "stun_tcp", "stun_turn", "stun_udp", "t124_t125", "t125_cotp", "t125_cotp_is", "t38_acdr",
    "tali_tcp", "tapa_ip", "tcpros_tcp", "tds_tcp", "teredo_udp", "tfp_usb_bulk", "tftp",
    "tftp_stun", "thread_wlan_beacon", "thrift_tcp", "thrift_udp", "thrift_usb_bulk",
    "tiff_wtap", "tls_tcp", "tpkt_tcp", "tte_eth", "turnchannel_stun", "tuxedo_tcp", "u3v",
    "ucp_tcp", "udt_dtls", "udt_udp", "usb_bulk_isi", "vnc_tcp", "vssmonitoring_eth",
    "wassp_udp", "waveagent_udp", "websocket_tcp", "wg", "wol_udp", "xcsl_tcp", "xmcp_tcp",
    "xml_http", "xml_media", "xml_sip", "xml_tcp", "xml_udp", "xml_wtap", "yhoo_tcp",
    "ymsg_tcp", "zbee_nwk_gp_wlan", "zbee_nwk_wpan", "zbee_wpan_beacon", "zbip_wpan_beacon",
    "ziop_tcp",
};

static int
compare_name(const void *key, const void *entry)
{
    return strcmp(key, *(const char *const *)entry);
}

bool
read_heuristic_known(const char *name)
{
    return bsearch(name, heuristic_names, sizeof(heuristic_names) / sizeof(heuristic_names[0]),
                   sizeof(heuristic_names[0]), compare_name) != NULL;
}
