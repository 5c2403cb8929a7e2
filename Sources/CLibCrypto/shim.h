#ifndef SAVEVAULT_CLIBCRYPTO_SHIM_H
#define SAVEVAULT_CLIBCRYPTO_SHIM_H

#include <openssl/evp.h>
#include <openssl/hmac.h>

#endif
