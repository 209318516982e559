/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_ifaces.c - `roceshark ifaces`: what can be captured. Network
 * interfaces (for -i) and RDMA devices with their ports (for -d).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/capture/capture.h>

#include "cli.h"

static void
print_netifs(const struct rs_netif *nif, size_t n)
{
    printf("Network interfaces (capture -i IFACE):\n");
    if (n == 0)
        printf("  none\n");
    for (size_t i = 0; i < n; i++) {
        printf("  %-16s %-10s %-5s %s", nif[i].name, nif[i].link, nif[i].up ? "up" : "down",
               nif[i].running ? "link" : "no-link");
        if (nif[i].rdma_dev[0] != '\0')
            printf("  RDMA device %s", nif[i].rdma_dev);
        printf("\n");
    }
}

static void
print_rdma(const struct rs_rdma_dev *dev, size_t n, const char *note)
{
    printf("RDMA devices (capture -d DEV[:PORT]):\n");
    if (n == 0)
        printf("  none: %s\n", note);
    for (size_t i = 0; i < n; i++) {
        printf("  %-16s firmware %s\n", dev[i].name, dev[i].fw[0] != '\0' ? dev[i].fw : "?");
        for (unsigned p = 0; p < dev[i].n_ports; p++)
            printf("    port %u  %-10s %-8s mtu %u\n", dev[i].ports[p].num,
                   dev[i].ports[p].link, dev[i].ports[p].state, dev[i].ports[p].mtu);
    }
}

int
cmd_ifaces(int argc, char **argv)
{
    char err[RS_ERRBUF_SIZE], note[RS_ERRBUF_SIZE] = "";
    size_t n_net = 0, n_rdma = 0;

    static const char usage[] =
        "usage: roceshark ifaces\n"
        "Lists the network interfaces (link type, state, the RDMA device behind\n"
        "each) and the RDMA devices with their ports (link layer, state, MTU).\n";
    int c;

    optind = 1;
    if ((c = cli_getopt("ifaces", argc, argv, "h", NULL, usage)) != CLI_OPT_END)
        return c == CLI_OPT_HELP ? CLI_EXIT_OK : CLI_EXIT_USAGE;
    if (optind < argc)
        return cli_fail(CLI_EXIT_USAGE, "ifaces: unexpected argument '%s'", argv[optind]);
    struct rs_netif *nif = calloc(RS_IFACE_MAX, sizeof(*nif));
    struct rs_rdma_dev *dev = calloc(RS_IFACE_MAX, sizeof(*dev));
    if (nif == NULL || dev == NULL) {
        free(nif);
        free(dev);
        return cli_fail(CLI_EXIT_INTERNAL, "out of memory");
    }
    int rc = CLI_EXIT_OK;
    if (rs_capture_list_netifs(nif, RS_IFACE_MAX, &n_net, err) != 0)
        rc = cli_fail(CLI_EXIT_CAPTURE, "%s", err);
    else if (rs_capture_list_rdma(dev, RS_IFACE_MAX, &n_rdma, note, err) != 0)
        rc = cli_fail(CLI_EXIT_CAPTURE, "%s", err);
    if (rc == CLI_EXIT_OK) {
        print_netifs(nif, n_net);
        print_rdma(dev, n_rdma, note);
    }
    free(nif);
    free(dev);
    return rc;
}
