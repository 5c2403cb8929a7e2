#ifndef SAVEVAULT_CYAML_SHIM_H
#define SAVEVAULT_CYAML_SHIM_H

#include <yaml.h>

#endif
