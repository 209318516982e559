/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ib_portinfo_notes.c - the notes tshark 4.0 writes after 14 of PortInfo's values
 * (IBTA Vol 1, 14.2.5.6): "PortState: 0x4, Active", or that IBTA reserves the value.
 * tshark appends the text to the item rather than registering value names, so -T
 * fields, filters and -G know only the number, and so do we. Its words, its gaps and its
 * slips are kept, for our trees to read as its trees: LinkWidthEnabled 0x0f is
 * "Reserved" (its table names 0x0e twice), and a reserved LinkSpeedSupported says
 * "LinkWidthSupported". Measured on 257 crafted SMP GetResps (every value of each byte,
 * every nibble): tshark 4.0.17's lines for these fields and ours are identical.
 */
#include <stdbool.h>
#include <stddef.h>

#include "ib/ib_mad_int.h"

static const struct rs_value_string diag_codes[] = {
    {0, "Function Ready"},
    {1, "Performing Self Test"},
    {2, "Initializing"},
    {3, "Soft Error - Function has non-fatal error"},
    {4, "Hard Error - Function has fatal error"},
    {0, NULL},
};
static const struct rs_value_string width_enabled[] = {
    {0x01, "1x"},
    {0x02, "4x"},
    {0x03, "1x or 4x"},
    {0x04, "8x"},
    {0x05, "1x or 8x"},
    {0x06, "4x or 8x"},
    {0x07, "1x or 4x or 8x"},
    {0x08, "12x"},
    {0x09, "1x or 12x"},
    {0x0a, "4x or 12x"},
    {0x0b, "1x or 4x or 12x"},
    {0x0c, "8x or 12x"},
    {0x0d, "1x or 8x or 12x"},
    {0x0e, "4x or 8x or 12x"},
    {0xff, "Set to LinkWidthSupported Value - Response contains actual LinkWidthSupported"},
    {0, NULL},
};
static const struct rs_value_string width_supported[] = {
    {0x01, "1x"},
    {0x03, "1x or 4x"},
    {0x07, "1x or 4x or 8x"},
    {0x0b, "1x or 4x or 12x"},
    {0x0f, "1x or 4x or 8x or 12x"},
    {0, NULL},
};
static const struct rs_value_string width_active[] = {
    {0x01, "1x"},
    {0x02, "4x"},
    {0x04, "8x"},
    {0x08, "12x"},
    {0, NULL},
};
static const struct rs_value_string speed_supported[] = {
    {0x1, "2.5 Gbps"},
    {0x3, "2.5 or 5.0 Gbps"},
    {0x5, "2.5 or 10.0 Gbps"},
    {0x7, "2.5 or 5.0 or 10.0 Gbps"},
    {0, NULL},
};
static const struct rs_value_string speed_enabled[] = {
    {0x1, "2.5 Gbps"},
    {0x3, "2.5 or 5.0 Gbps"},
    {0x5, "2.5 or 10.0 Gbps"},
    {0x7, "2.5 or 5.0 or 10.0 Gbps"},
    {0xf, "Set to LinkSpeedSupported value - response contains actual LinkSpeedSupported"},
    {0, NULL},
};
static const struct rs_value_string speed_active[] = {
    {0x1, "2.5 Gbps"},
    {0x2, "5.0 Gbps"},
    {0x4, "10.0 Gbps"},
    {0, NULL},
};
static const struct rs_value_string port_states[] = {
    {1, "Down (includes failed links)"},
    {2, "Initialized"},
    {3, "Armed"},
    {4, "Active"},
    {0, NULL},
};
static const struct rs_value_string physical_states[] = {
    {1, "Sleep"},
    {2, "Polling"},
    {3, "Disabled"},
    {4, "PortConfigurationTraining"},
    {5, "LinkUp"},
    {6, "LinkErrorRecovery"},
    {7, "Phy Test"},
    {0, NULL},
};
static const struct rs_value_string link_down_states[] = {
    {1, "Sleep"},
    {2, "Polling"},
    {0, NULL},
};
static const struct rs_value_string mtus[] = {
    {1, "256"},
    {2, "512"},
    {3, "1024"},
    {4, "2048"},
    {5, "4096"},
    {0, NULL},
};
/* VLCap's and OperationalVLs' */
static const struct rs_value_string vl_caps[] = {
    {1, "VL0"},
    {2, "VL0, VL1"},
    {3, "VL0 - VL3"},
    {4, "VL0 - VL7"},
    {5, "VL0 - VL14"},
    {0, NULL},
};

#define RESERVED(what) "Reserved " what " Value! Possible Error"

/* Each noted field by its place in PortInfo: its offset and mask. */
static const struct {
    uint16_t offset;
    uint8_t mask;
    bool settable;      /* a field a SubnSet sets, where 0 is "No State Change" */
    const struct rs_value_string *names;
    const char *reserved;
} notes[] = {
    {24, 0, false, diag_codes, "Reserved DiagCode! Possible Error"},
    {29, 0, true, width_enabled, RESERVED("LinkWidthEnabled")},
    {30, 0, false, width_supported, RESERVED("LinkWidthSupported")},
    {31, 0, false, width_active, RESERVED("LinkWidthActive")},
    {32, 0xf0, false, speed_supported, RESERVED("LinkWidthSupported")},
    {32, 0x0f, true, port_states, RESERVED("PortState")},
    {33, 0xf0, true, physical_states, RESERVED("PortPhysicalState")},
    {33, 0x0f, true, link_down_states, RESERVED("LinkDownDefaultState")},
    {35, 0xf0, false, speed_active, RESERVED("LinkSpeedActive")},
    {35, 0x0f, true, speed_enabled, RESERVED("LinkSpeedEnabled")},
    {36, 0xf0, false, mtus, RESERVED("NeighborMTU")},
    {37, 0xf0, false, vl_caps, RESERVED("VLCap")},
    {41, 0x0f, false, mtus, RESERVED("MTUCap")},
    {43, 0xf0, true, vl_caps, RESERVED("OperationalVLs")},
};

size_t
mad_portinfo_show_note(const struct rs_field *f, const struct rs_value *v, char *buf,
                       size_t size)
{
    for (size_t i = 0; i < sizeof(notes) / sizeof(notes[0]); i++) {
        if (notes[i].offset != f->offset || notes[i].mask != f->mask)
            continue;
        const char *name = notes[i].settable && v->v.u == 0
                               ? "No State Change"
                               : rs_value_name(notes[i].names, v->v.u);
        return rs_show_noted(f, v, name != NULL ? name : notes[i].reserved, buf, size);
    }
    return rs_value_format(f, v, buf, size);    /* not a noted field: never in the table */
}
