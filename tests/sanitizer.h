/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sanitizer.h - HAVE_ASAN when AddressSanitizer instruments this build: gcc
 * says __SANITIZE_ADDRESS__, clang (14) only answers __has_feature.
 */
#ifndef ROCESHARK_TESTS_SANITIZER_H
#define ROCESHARK_TESTS_SANITIZER_H

#if defined(__SANITIZE_ADDRESS__)
#define HAVE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HAVE_ASAN 1
#endif
#endif

#endif /* ROCESHARK_TESTS_SANITIZER_H */
