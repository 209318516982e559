/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * port_names.c - TCP and UDP port names as tshark's -N t gives them, from the services
 * files Wireshark installs (Debian's libwireshark-data) and the user's own: lines
 * "NAME PORT[-PORT]/PROTO[/PROTO...]", a '#' starting a comment; a later line for a port
 * wins, and the personal file is read after the global one, as Wireshark reads them.
 *
 * Read at run time, once for the process when a name is first needed (pthread_once; the
 * tables are only read after), never copied into the project: they change with every
 * Wireshark release. Only -N t asks, so a run without it never reads the files.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pthread.h>

#include <glib.h>

#include <roceshark/dissectors/display.h>
#include <roceshark/dissectors/port_names.h>
#include <roceshark/dissectors/wireshark_files.h>

#define PORTS 65536

/* Each table gives a port's name as an offset into the file's text (kept for the
 * process), plus one; 0 for none. */
struct port_names {
    uint32_t *tcp, *udp;
    GPtrArray *texts;
};

static struct port_names names;
static pthread_once_t names_once = PTHREAD_ONCE_INIT;

static void
put_ports(const char *spec, const char *name, const char *base, uint32_t text_no)
{
    char *end;
    unsigned long lo = strtoul(spec, &end, 10), hi = lo;

    if (end == spec || lo >= PORTS)
        return;
    if (*end == '-') {
        const char *s = end + 1;
        hi = strtoul(s, &end, 10);
        if (end == s || hi >= PORTS || hi < lo)
            return;
    }
    if (*end != '/')
        return;
    bool tcp = false, udp = false;
    for (char *save = NULL, *proto = strtok_r(end + 1, "/", &save); proto != NULL;
         proto = strtok_r(NULL, "/", &save)) {
        tcp |= strcmp(proto, "tcp") == 0;
        udp |= strcmp(proto, "udp") == 0;
    }
    /* an offset that names its text too: the high bits say which file's */
    uint32_t at = (uint32_t)(name - base) + 1;
    if (at >= (1u << 24))
        return;
    at |= text_no << 24;
    for (unsigned long p = lo; p <= hi; p++) {
        if (tcp)
            names.tcp[p] = at;
        if (udp)
            names.udp[p] = at;
    }
}

static void
read_file(const char *path)
{
    gchar *text = NULL;
    gsize len = 0;

    if (names.texts->len >= 255 || !g_file_get_contents(path, &text, &len, NULL))
        return;
    g_ptr_array_add(names.texts, text);
    uint32_t text_no = names.texts->len;
    for (char *line = text, *next; line != NULL && *line != '\0'; line = next) {
        next = strchr(line, '\n');
        if (next != NULL)
            *next++ = '\0';
        char *save = NULL, *hash = strchr(line, '#');
        if (hash != NULL)
            *hash = '\0';
        char *name = strtok_r(line, " \t\r", &save);
        char *ports = name != NULL ? strtok_r(NULL, " \t\r", &save) : NULL;
        if (ports != NULL)
            put_ports(ports, name, text, text_no);
    }
}

static void
load(void)
{
    names.texts = g_ptr_array_new();
    names.tcp = calloc(PORTS, sizeof(*names.tcp));
    names.udp = calloc(PORTS, sizeof(*names.udp));
    if (names.tcp == NULL || names.udp == NULL) {
        free(names.tcp);
        free(names.udp);
        names.tcp = names.udp = NULL;   /* out of memory: ports show as numbers */
        return;
    }
    char *path = rs_wireshark_data_file("services");
    read_file(path);
    g_free(path);
    path = rs_wireshark_personal_file("services");
    if (path != NULL) {
        read_file(path);
        g_free(path);
    }
}

const char *
rs_port_name(bool tcp, uint16_t port)
{
    pthread_once(&names_once, load);
    const uint32_t *table = tcp ? names.tcp : names.udp;
    if (table == NULL || table[port] == 0)
        return NULL;
    const char *text = g_ptr_array_index(names.texts, (table[port] >> 24) - 1);
    return text + (table[port] & 0xffffff) - 1;
}

void
rs_port_info(bool tcp, uint16_t port, char *buf, size_t size)
{
    const char *name = rs_display_get()->resolve_transport ? rs_port_name(tcp, port) : NULL;

    if (name != NULL)
        snprintf(buf, size, "%s(%u)", name, port);
    else
        snprintf(buf, size, "%u", port);
}

void
rs_port_tree(bool tcp, uint16_t port, char *buf, size_t size)
{
    if (!rs_display_get()->resolve_transport) {
        snprintf(buf, size, "%u", port);
        return;
    }
    const char *name = rs_port_name(tcp, port);
    if (name != NULL)
        snprintf(buf, size, "%s (%u)", name, port);
    else
        snprintf(buf, size, "%u (%u)", port, port);
}
