/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * type_names.c - Wireshark's name of each field type ("FT_UINT32"), the one table that
 * `-G fields`, `roceshark fields` and the display filter's messages all read.
 *
 * The table is indexed by designated initialisers and its size is tied to the enum, so
 * a type added anywhere in enum rs_ftype cannot shift the names of the others.
 */
#include <roceshark/dissectors/common.h>
#include <roceshark/dissectors/fields.h>

static const char *const type_names[] = {
    [RS_FT_PROTOCOL] = "FT_PROTOCOL",
    [RS_FT_BOOLEAN] = "FT_BOOLEAN",
    [RS_FT_UINT8] = "FT_UINT8",
    [RS_FT_UINT16] = "FT_UINT16",
    [RS_FT_UINT24] = "FT_UINT24",
    [RS_FT_UINT32] = "FT_UINT32",
    [RS_FT_UINT64] = "FT_UINT64",
    [RS_FT_INT16] = "FT_INT16",
    [RS_FT_INT32] = "FT_INT32",
    [RS_FT_FRAMENUM] = "FT_FRAMENUM",
    [RS_FT_DOUBLE] = "FT_DOUBLE",
    [RS_FT_RELTIME] = "FT_RELATIVE_TIME",
    [RS_FT_ABSTIME] = "FT_ABSOLUTE_TIME",
    [RS_FT_BYTES] = "FT_BYTES",
    [RS_FT_ETHER] = "FT_ETHER",
    [RS_FT_IPV4] = "FT_IPv4",
    [RS_FT_IPV6] = "FT_IPv6",
    [RS_FT_STRING] = "FT_STRING",
    [RS_FT_NONE] = "FT_NONE",
};

_Static_assert(RS_ARRAY_SIZE(type_names) == RS_FT_COUNT,
               "every enum rs_ftype needs its name in type_names[]");

const char *
rs_field_type_name(uint8_t type)
{
    return type < RS_FT_COUNT && type_names[type] != NULL ? type_names[type] : "FT_NONE";
}
