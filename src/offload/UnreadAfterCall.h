//===- UnreadAfterCall.h - Arrays no caller reads after the call -*- C++
//-*-===//
//
// Part of offload's data planner. A function that offloads its loops often
// takes its arrays from main, and one of them is scratch: PolyBench's
// doitgen writes `sum` on the device, and main only frees it afterwards.
// Copying such an array back costs the host's page faults on memory nobody
// reads (7 ms of doitgen's 15 ms at 128^3 on an H200). Where every call of
// the function passes an array that its caller allocated for it and only
// frees afterwards, the region need not copy it out.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_OFFLOAD_UNREAD_AFTER_CALL_H
#define WARPWISE_OFFLOAD_UNREAD_AFTER_CALL_H

#include "CallerExtents.h"

#include <string>

namespace warpwise {
namespace offload {

/// Whether no caller of \p F can read what pointer parameter \p V points to
/// after the call: every call of F is in view (CallerExtents), none in a
/// loop of its caller or in a caller with a goto; each passes `w` or `*w`
/// for V, w a local (not static) of the caller that is an array or holds
/// only fresh allocations (rules/offload.json's fresh_allocators, or new[])
/// and that the caller mentions nowhere else but in free(w). \p From says
/// which calls ("main passes 'sum' at line 120 and only frees it after");
/// \p Why why not. The caller of this checks F's own uses of V.
bool unreadAfterCalls(const OffloadSource &Src, CallerExtents &Callers,
                      const clang::FunctionDecl *F, const clang::ParmVarDecl *V,
                      std::string &From, std::string &Why);

/// The functions rules/offload.json lists as returning memory no other
/// pointer refers to (malloc, calloc, ...).
bool isFreshAllocator(llvm::StringRef Name);

} // namespace offload
} // namespace warpwise

#endif
