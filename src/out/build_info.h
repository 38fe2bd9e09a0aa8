/* build_info.h (private) — the build's facts, defined in build_info.c, which
 * meson makes from src/out/build_info.c.in (configure_file, then vcs_tag). */
#ifndef LBTORUS_OUT_BUILD_INFO_H
#define LBTORUS_OUT_BUILD_INFO_H

extern const char lbt_build_git_text[];      /* `git describe --always --dirty`, or the version */
extern const char lbt_build_compiler_text[]; /* "gcc 12.2.0" */
extern const char lbt_build_flags_text[];    /* buildtype, optimization level, c_args */

#endif
