/* Compiled as part of the CVow target so that every edit to include/vow.h is
   noticed by the build (SwiftPM tracks the headers of a target's sources). */
#include "vow.h"
#include "vow_testing.h"
