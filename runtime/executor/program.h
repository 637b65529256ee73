// Program: a loaded, fully validated .pte file. Loading checks the file header,
// runs the FlatBuffers verifier and then checks every index, size and offset
// the runtime will later follow (program_validation.h); a file that passes
// cannot make the runtime read or write outside the file or the arenas.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/result.h"
#include "runtime/core/span.h"
#include "runtime/executor/data_loader.h"
#include "schema/file_header.h"

namespace torchir::pte {
struct Program;
struct Method;
}  // namespace torchir::pte

namespace torchir::runtime {

class Program {
 public:
  // Validates the loader's bytes. The loader must outlive the Program and every
  // Method made from it. kInvalidProgram / kUnsupportedVersion /
  // kProgramOutOfBounds for a bad file, kInvalidArgument for a misaligned
  // buffer.
  static Result<Program> Load(const DataLoader& loader);

  size_t num_methods() const;
  // Name of method `index` (< num_methods()).
  const char* method_name(size_t index) const;
  // The method called `name`, or nullptr.
  const pte::Method* FindMethod(const char* name) const;

  // The data segment `index` (checked in bounds at load).
  Span<const uint8_t> segment(size_t index) const;
  size_t num_segments() const;

  const pte::FileHeader& header() const { return header_; }
  // The verified FlatBuffer root, for tools that print a program.
  const pte::Program* flatbuffer() const { return program_; }
  size_t file_size() const { return file_.size(); }

 private:
  Program(Span<const uint8_t> file, const pte::FileHeader& header, const pte::Program* program)
      : file_(file), header_(header), program_(program) {}

  Span<const uint8_t> file_;
  pte::FileHeader header_;
  const pte::Program* program_ = nullptr;
};

}  // namespace torchir::runtime
