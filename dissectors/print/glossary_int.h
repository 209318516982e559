/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * glossary_int.h - the lines of tshark's -G column-formats, dissector-tables and decodes
 * that describe us (glossary_tables.c, written by scripts/gen_glossary_tables.py), each
 * list ending in NULL.
 */
#ifndef ROCESHARK_PRINT_GLOSSARY_INT_H
#define ROCESHARK_PRINT_GLOSSARY_INT_H

#include <stddef.h>

extern const char *const rs_glossary_column_formats[];
extern const char *const rs_glossary_dissector_tables[];
extern const char *const rs_glossary_decodes[];

#endif /* ROCESHARK_PRINT_GLOSSARY_INT_H */
