//===- ExternalSharing.h - Launch-uniform values from the host --*- C++ -*-===//
#ifndef WARPWISE_EXTERNAL_SHARING_H
#define WARPWISE_EXTERNAL_SHARING_H

#include "ShareAnalysis.h"

#include "warpwise/Transform.h"

namespace warpwise {
namespace share {

/// A kernel with external linkage that external sharing rewrote. Other
/// translation units may declare and launch it, take its address or look it
/// up by name, so its definition stays as written; the rewrite goes to a
/// copy with internal linkage (`static`, named `<kernel>_ww_share`) that
/// this file's launches run. The run's edits inside the definition move
/// into the copy once all of the kernel's decisions are made
/// (moveIntoCopies).
struct KernelCopy {
  std::string File;            ///< The definition's file.
  unsigned Begin = 0, End = 0; ///< The definition's bytes.
  unsigned NameAt = 0;         ///< Its name's offset.
  std::string Name, CopyName;
  std::string Original; ///< The definition's text.
  std::string Heading;  ///< The decision's comment above the copy, which
                        ///< also marks the original as kept.
  /// Earlier transformations' edits inside the definition: the original
  /// keeps them, and the copy starts from them.
  std::vector<tooling::Replacement> Earlier;
  size_t Change = 0; ///< The external decision's Change, which gets the copy.
};

/// Whether \p FD is the original that an earlier rewrite kept beside its
/// copy (the copy's heading, right after the definition, says so): it is
/// not shared again.
bool keptOriginal(TransformContext &TC, const FunctionDecl *FD);

/// Moves the edits inside each of \p Copies' definitions, from every Change
/// of \p Changes, into a copy of the definition inserted after it, renamed
/// and made `static`, so that the original stays as written.
void moveIntoCopies(TransformContext &TC, const std::vector<KernelCopy> &Copies,
                    std::vector<Change> &Changes);

using ClosureFn =
    std::function<std::set<const VarDecl *>(const std::set<const VarDecl *> &)>;

/// External sharing (seed 001): the launch-uniform scalars among \p Worth
/// (computed from kernel parameters and constants alone) are computed by
/// the host at each launch and passed as new parameters. Reports its own
/// decision; takes what it shares out of \p Worth. Returns why launch-uniform
/// values stay on the device, for the internal decision ("" when none do or
/// none exist). A kernel with external linkage is rewritten in a copy: its
/// KernelCopy is added to \p Copies.
std::string shareExternally(TransformContext &TC, const char *Transform,
                            const FunctionDecl *FD,
                            const std::vector<const VarDecl *> &Order,
                            std::map<const VarDecl *, Candidate> &Cands,
                            std::set<const VarDecl *> &Worth,
                            const std::set<const VarDecl *> &WrittenParams,
                            const ClosureFn &Closure,
                            std::vector<Decision> &Decisions,
                            std::vector<Change> &Changes,
                            std::vector<KernelCopy> &Copies);

} // namespace share
} // namespace warpwise

#endif
