/* SPDX-License-Identifier: MIT */
/*
 * The library's version, from the macros of include/rcuboost.h: CMake
 * reads the same lines for the project version, the SONAME and the
 * pkg-config file (cmake/rcuboostVersion.cmake), so that all of them and
 * rcb_version() cannot disagree.
 */
#include "core/internal.h"

RCB_API unsigned int rcb_version(void)
{
	return RCB_VERSION_NUMBER;
}

RCB_API const char *rcb_version_string(void)
{
	return RCB_VERSION_STRING;
}
