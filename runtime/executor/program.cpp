#include "runtime/executor/program.h"

#include <cstring>

#include "runtime/executor/program_validation.h"
#include "schema/program_generated.h"

namespace torchir::runtime {

Result<Program> Program::Load(const DataLoader& loader) {
  Span<const uint8_t> file = loader.data();
  pte::FileHeader header;
  const pte::Program* program = nullptr;
  Error error = ValidateProgram(file, &header, &program);
  if (error != Error::kOk) return error;
  return Program(Span<const uint8_t>(file.data(), static_cast<size_t>(header.file_size)), header,
                 program);
}

size_t Program::num_methods() const { return program_->methods()->size(); }

const char* Program::method_name(size_t index) const {
  if (index >= num_methods()) return nullptr;
  return program_->methods()->Get(static_cast<flatbuffers::uoffset_t>(index))->name()->c_str();
}

const pte::Method* Program::FindMethod(const char* name) const {
  for (const pte::Method* method : *program_->methods()) {
    const flatbuffers::String* method_name = method->name();
    if (method_name->size() == std::strlen(name) &&
        std::memcmp(method_name->data(), name, method_name->size()) == 0) {
      return method;
    }
  }
  return nullptr;
}

size_t Program::num_segments() const {
  return program_->segments() != nullptr ? program_->segments()->size() : 0;
}

Span<const uint8_t> Program::segment(size_t index) const {
  if (index >= num_segments()) return Span<const uint8_t>();
  const pte::Segment* segment =
      program_->segments()->Get(static_cast<flatbuffers::uoffset_t>(index));
  return Span<const uint8_t>(
      file_.data() + header_.segment_base_offset + segment->offset(),
      static_cast<size_t>(segment->size()));
}

}  // namespace torchir::runtime
