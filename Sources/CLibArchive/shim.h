#ifndef SAVEVAULT_CLIBARCHIVE_SHIM_H
#define SAVEVAULT_CLIBARCHIVE_SHIM_H

#include <archive.h>
#include <archive_entry.h>

/* File-type macros Swift cannot import, re-exported as constants. */
static const unsigned int SV_AE_IFMT = AE_IFMT;
static const unsigned int SV_AE_IFREG = AE_IFREG;
static const unsigned int SV_AE_IFDIR = AE_IFDIR;
static const unsigned int SV_AE_IFLNK = AE_IFLNK;

#endif
