#ifndef SAVEVAULT_CSQLITE_SHIM_H
#define SAVEVAULT_CSQLITE_SHIM_H

#include <sqlite3.h>

#endif
