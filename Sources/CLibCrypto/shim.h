#ifndef SAVEVAULT_CLIBCRYPTO_SHIM_H
#define SAVEVAULT_CLIBCRYPTO_SHIM_H

/* Only the low-level SHA256_* and MD5_* functions (deprecated in OpenSSL 3 but kept): unlike
   EVP they need no provider set-up, and linked from the static libcrypto they bring in about
   40 KB instead of the whole library. */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>
#include <openssl/md5.h>

#endif
