// tile.h - found through the target's include directories.
#pragma once
#ifndef WW_TILE
#error "WW_TILE is not defined: the target's compile definitions were not passed"
#endif
#define WW_WIDTH (WW_TILE * 64)
