/*
 * libarchive is linked from its static library so that only the code for what SaveVault uses
 * (pax and ustar writing, tar reading, zstd, and gzip, bzip2 and xz reading) comes into the
 * program. One internal helper of the pax writer, which names a file type a format cannot
 * hold, lives in the same object file as libarchive's table of every writer format; taking
 * that object would bring in all of them (7-Zip, ISO 9660, xar with libxml2 and ICU, zip, …)
 * and the libraries they need. Defining the helper here keeps that object out. SaveVault never
 * hands the writer such a file (the scan skips sockets and devices before packing), so the
 * message only has to be clear.
 */
#ifdef __linux__
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>

// The helper's signature is libarchive's own, unchanged since it appeared in 3.6.0; a major
// version may change it, so the build stops there to have it checked.
#if ARCHIVE_VERSION_NUMBER >= 4000000
#error "check __archive_write_entry_filetype_unsupported's signature in this libarchive"
#endif

void __archive_write_entry_filetype_unsupported(struct archive *a, struct archive_entry *entry,
                                                const char *format) {
  archive_set_error(a, EILSEQ, "%s: the %s format cannot hold this type of file",
                    archive_entry_pathname(entry), format);
}
#endif
