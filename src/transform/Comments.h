//===- Comments.h - The user's comments in code that is rewritten -*- C++ -*-=//
//
// A transformation that replaces a stretch of the user's code writes the
// code anew; the comments in that stretch must come along, each next to what
// it described. These helpers find the comments (with the raw lexer, so a
// `//` inside a string literal is none) and sort them by what they describe:
// the statement below them or on whose line they trail, or the line of the
// branch or loop itself.
//
//===----------------------------------------------------------------------===//
#ifndef WARPWISE_COMMENTS_H
#define WARPWISE_COMMENTS_H

#include "clang/Basic/LangOptions.h"
#include "llvm/ADT/StringRef.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace clang {
class SourceManager;
class Stmt;
} // namespace clang

namespace warpwise {

/// One comment and where it is in the text it was found in.
struct SourceComment {
  unsigned Begin = 0, End = 0; ///< Offsets: first and one-past-last character.
  std::string Text;
};

/// The comments that start in Code[Begin, End). Begin must not be inside a
/// token (a string literal or another comment); a NUL must follow Code (a
/// file's buffer and a std::string have one).
std::vector<SourceComment> commentsIn(llvm::StringRef Code, unsigned Begin,
                                      unsigned End,
                                      const clang::LangOptions &LO);

/// A comment's text with every run of whitespace made one space: the same
/// comment with its block-comment lines indented differently compares
/// equal.
std::string normalizedComment(llvm::StringRef Text);

/// The comment in \p Text without its delimiters, trimmed ("odd lanes" for
/// `// odd lanes` and for `/* odd lanes */`).
llvm::StringRef commentBody(llvm::StringRef Text);

/// \p Comment on lines of its own at \p Indent, each ending in a newline.
/// A block comment's later lines are kept as they are.
std::string commentLines(llvm::StringRef Comment, llvm::StringRef Indent);

/// commentLines of \p Comment labelled with \p Label ("ww_cond_12", the
/// condition of the side it was on) for code in which that side is gone:
/// `//odd` becomes `// ww_cond_12: odd`. A block comment keeps its text and
/// gets the label on a line of its own above it. The formatting step
/// (warpwise/Format.h) leaves these alone as it does the user's comments.
std::string labelledComment(llvm::StringRef Label, llvm::StringRef Comment,
                            llvm::StringRef Indent);

/// The comments of one side of a branch, or of a loop's body, sorted by
/// what they describe.
struct SideComments {
  /// On the side's own lines: `if (c) { // odd`, `} else { // even`, and
  /// any before the side's `{`.
  std::vector<SourceComment> Header;
  /// The comment lines right above a statement, after the one before it.
  std::map<const clang::Stmt *, std::vector<SourceComment>> Leading;
  /// After a statement (its `;` included) on the line where it ends; one
  /// that ends in a body that is not a block (`if (c) x = 1; // c`) is
  /// that body's.
  std::map<const clang::Stmt *, std::vector<SourceComment>> Trailing;
  /// Inside a statement's own text, nested blocks included.
  std::map<const clang::Stmt *, std::vector<SourceComment>> Inner;
  /// On lines of their own after the last statement, and after the side's
  /// `}` up to the `else`.
  std::vector<SourceComment> Closing;
  std::vector<const clang::Stmt *> Statements; ///< The side's, in order.
};

/// The comments of \p Side, the then- or else-side of the if statement
/// \p Owner or the body of the for or while loop \p Owner; offsets are of
/// the file \p Owner is written in.
SideComments commentsOfSide(const clang::SourceManager &SM,
                            const clang::LangOptions &LO,
                            const clang::Stmt *Owner, const clang::Stmt *Side);

/// The file offsets of \p S: its first character, and one past its last
/// token or the `;` that ends it. False when it is not one stretch of the
/// file.
bool statementExtent(const clang::SourceManager &SM,
                     const clang::LangOptions &LO, const clang::Stmt *S,
                     unsigned &Begin, unsigned &End);

/// Those of \p Comments that \p Rendered does not hold (compared as
/// normalizedComment): what writing a statement anew left out.
std::vector<SourceComment>
missingFrom(const std::string &Rendered,
            const std::vector<SourceComment> &Comments,
            const clang::LangOptions &LO);

/// Keeps the user's comments of a branch or loop that is written anew: the
/// sides are sorted as they are read (side), and each statement's
/// comments go with the code written for it (place). Every comment is
/// written once; leftOver says which ones nothing took.
class CommentKeeper {
public:
  CommentKeeper(const clang::SourceManager &SM, const clang::LangOptions &LO)
      : SM(SM), LO(LO) {}

  /// The statements of \p Side of \p Owner (commentsOfSide), whose
  /// comments are kept from now on.
  std::vector<const clang::Stmt *> side(const clang::Stmt *Owner,
                                        const clang::Stmt *Side);

  /// Appends \p Piece, the code written for \p A, or for \p A and \p B
  /// merged into one (B may be null), to \p Text with their comments: the
  /// lines above each statement, then those inside them that \p Piece
  /// lost, above it at \p Indent; what trailed them at the end of its last
  /// line. Comments of the two that are equal text are written once; when
  /// both had a different trailing comment, both go above.
  void place(const clang::Stmt *A, const clang::Stmt *B, std::string Piece,
             llvm::StringRef Indent, std::string &Text);

  /// Appends the comments on the own lines of \p SideA and \p SideB (either
  /// may be null) at \p Indent: labelled with \p LabelA and \p LabelB
  /// (the side each was on), or once unlabelled when they are equal.
  void headers(const clang::Stmt *SideA, const clang::Stmt *SideB,
               llvm::StringRef LabelA, llvm::StringRef LabelB,
               llvm::StringRef Indent, std::string &Text);
  /// The same for the comments after their last statements.
  void closings(const clang::Stmt *SideA, const clang::Stmt *SideB,
                llvm::StringRef LabelA, llvm::StringRef LabelB,
                llvm::StringRef Indent, std::string &Text);

  /// The comments in the file \p Code between \p Begin and \p End that were
  /// not written and that \p Written (the new code) does not hold either;
  /// they count as written from now on.
  std::vector<SourceComment> leftOver(llvm::StringRef Code, unsigned Begin,
                                      unsigned End, const std::string &Written);

  /// Marks \p C written; false when it was already.
  bool take(const SourceComment &C) { return Taken.insert(C.Begin).second; }

private:
  void sides(std::map<const clang::Stmt *, std::vector<SourceComment>> &Of,
             const clang::Stmt *SideA, const clang::Stmt *SideB,
             llvm::StringRef LabelA, llvm::StringRef LabelB,
             llvm::StringRef Indent, std::string &Text);
  /// Those of \p Cs not written yet, now taken.
  std::vector<SourceComment> untaken(const std::vector<SourceComment> &Cs);

  const clang::SourceManager &SM;
  const clang::LangOptions &LO;
  std::map<const clang::Stmt *, std::vector<SourceComment>> Leading, Trailing,
      Inner, Header, Closing;
  std::set<unsigned> Taken; ///< File offsets of the comments written.
};

} // namespace warpwise

#endif
