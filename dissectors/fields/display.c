/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * display.c - the process-wide display settings (display.h).
 */
#include <string.h>

#include <roceshark/dissectors/display.h>

static struct rs_display settings = {.resolve_mac = true};

const struct rs_display *
rs_display_get(void)
{
    return &settings;
}

void
rs_display_set(const struct rs_display *d)
{
    settings = *d;
}

bool
rs_display_parse_resolve(struct rs_display *d, const char *letters)
{
    d->resolve_mac = d->resolve_transport = false;
    for (const char *c = letters; *c != '\0'; c++) {
        if (*c == 'm')
            d->resolve_mac = true;
        else if (*c == 't')
            d->resolve_transport = true;
        else if (strchr("ndNvg", *c) == NULL)
            return false;
    }
    return true;
}
