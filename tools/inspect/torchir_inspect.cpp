// torchir-inspect: prints what a .pte program holds (methods, operators,
// delegates, arenas, segments and sizes), as text or JSON. The file is loaded
// through the runtime's validating loader first, so a corrupt file is reported,
// not printed.
#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_printer.h"
#include "runtime/core/scalar_type.h"
#include "runtime/executor/data_loader.h"
#include "runtime/executor/program.h"
#include "runtime/platform/platform.h"
#include "backends/xnnpack/serialization/xnnpack_blob_generated.h"
#include "schema/program_generated.h"
#include "tools/cli/command_line.h"

namespace {

namespace pte = torchir::pte;

constexpr char kDescription[] =
    "Prints the contents of a torchir program (.pte): file layout and segments, and per\n"
    "method its inputs and outputs, instruction count, the operators it calls (with call\n"
    "counts), its delegates and the arenas it needs. The file is checked by the runtime's\n"
    "loader first; a file the runtime would refuse is reported with the reason.";

constexpr char kEpilog[] =
    "examples:\n"
    "  torchir-inspect model.pte\n"
    "  torchir-inspect model.pte --json | python3 -m json.tool\n"
    "\n"
    "exit status: 0 success, 1 an unreadable or invalid program, 2 usage error";

std::vector<std::string> g_runtime_errors;
void CaptureLog(torchir::runtime::LogLevel, const char* message) {
  g_runtime_errors.push_back(message);
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof(buffer), "\\u%04x", c);
          out += buffer;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string TensorTypeString(const pte::Tensor& tensor) {
  std::string s = torchir::runtime::ScalarTypeName(
      static_cast<torchir::runtime::ScalarType>(tensor.scalar_type()));
  s += "[";
  if (tensor.sizes() != nullptr) {
    for (flatbuffers::uoffset_t i = 0; i < tensor.sizes()->size(); ++i) {
      s += (i ? ", " : "") + std::to_string(tensor.sizes()->Get(i));
    }
  }
  return s + "]";
}

struct MethodSummary {
  std::string name;
  std::vector<std::pair<std::string, std::string>> inputs, outputs;  // name, type
  size_t values = 0, tensors = 0, constants = 0;
  uint64_t constant_bytes = 0;
  size_t kernel_calls = 0, delegate_calls = 0;
  std::vector<std::pair<std::string, size_t>> operators;  // name, calls
  uint64_t kernel_macs = 0, delegate_macs = 0;
  struct Delegate {
    std::string backend;
    uint32_t segment;
    uint64_t bytes;
    size_t specs;
    uint64_t macs = 0;  // over its calls
    std::map<std::string, size_t> ops;  // the Edge ops it took, when the blob says
  };
  std::vector<Delegate> delegates;
  std::vector<uint64_t> arenas;
};

uint64_t TensorBytes(const pte::Tensor& tensor) {
  uint64_t bytes = torchir::runtime::ElementSize(
      static_cast<torchir::runtime::ScalarType>(tensor.scalar_type()));
  if (tensor.sizes() != nullptr) {
    for (int64_t size : *tensor.sizes()) bytes *= static_cast<uint64_t>(size);
  }
  return bytes;
}

MethodSummary Summarize(const pte::Method& method, const torchir::runtime::Program& program) {
  MethodSummary m;
  m.name = method.name()->str();
  const auto& values = *method.values();
  m.values = values.size();
  for (const pte::EValue* value : values) {
    if (value->value_type() != pte::Value::Tensor) continue;
    ++m.tensors;
    const pte::Tensor& t = *value->value_as_Tensor();
    if (t.constant() != nullptr) {
      ++m.constants;
      m.constant_bytes += TensorBytes(t);
    }
  }
  auto describe = [&](const flatbuffers::Vector<int32_t>* indices,
                      const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>* names,
                      std::vector<std::pair<std::string, std::string>>* out) {
    if (indices == nullptr) return;
    for (flatbuffers::uoffset_t i = 0; i < indices->size(); ++i) {
      const pte::Tensor& t = *values.Get(static_cast<flatbuffers::uoffset_t>(indices->Get(i)))
                                  ->value_as_Tensor();
      std::string name = names != nullptr ? names->Get(i)->str() : "#" + std::to_string(i);
      out->emplace_back(name, TensorTypeString(t));
    }
  };
  describe(method.inputs(), method.input_names(), &m.inputs);
  describe(method.outputs(), method.output_names(), &m.outputs);
  const size_t num_operators = method.operators() ? method.operators()->size() : 0;
  std::vector<size_t> calls(num_operators, 0);
  if (method.delegates() != nullptr) {
    for (const pte::BackendDelegate* d : *method.delegates()) {
      MethodSummary::Delegate delegate;
      delegate.backend = d->backend_id()->str();
      delegate.segment = d->segment_index();
      torchir::runtime::Span<const uint8_t> blob = program.segment(d->segment_index());
      delegate.bytes = blob.size();
      delegate.specs = d->compile_specs() ? d->compile_specs()->size() : 0;
      flatbuffers::Verifier verifier(blob.data(), blob.size());
      if (torchir::xnnpack::VerifyGraphBuffer(verifier)) {
        const torchir::xnnpack::Graph* graph = torchir::xnnpack::GetGraph(blob.data());
        if (graph->source_ops() != nullptr) {
          for (const flatbuffers::String* op : *graph->source_ops()) ++delegate.ops[op->str()];
        }
      }
      m.delegates.push_back(std::move(delegate));
    }
  }
  if (method.instructions() != nullptr) {
    for (const pte::Instruction* instruction : *method.instructions()) {
      if (instruction->kind_type() == pte::InstructionKind::KernelCall) {
        ++m.kernel_calls;
        ++calls[instruction->kind_as_KernelCall()->operator_index()];
        m.kernel_macs += instruction->macs();
      } else {
        ++m.delegate_calls;
        m.delegate_macs += instruction->macs();
        m.delegates[instruction->kind_as_DelegateCall()->delegate_index()].macs +=
            instruction->macs();
      }
    }
  }
  for (size_t i = 0; i < num_operators; ++i) {
    m.operators.emplace_back(
        method.operators()->Get(static_cast<flatbuffers::uoffset_t>(i))->name()->str(), calls[i]);
  }
  if (method.arena_sizes() != nullptr) {
    for (uint64_t size : *method.arena_sizes()) m.arenas.push_back(size);
  }
  return m;
}

void PrintText(const std::string& path, const torchir::runtime::Program& program,
               const std::vector<MethodSummary>& methods) {
  using torchir::ir::FormatBytes;
  const pte::FileHeader& h = program.header();
  std::cout << path << ": torchir program, format version " << program.flatbuffer()->version()
            << " (header " << h.version << "), " << FormatBytes(program.file_size()) << "\n";
  std::cout << "  program FlatBuffer " << FormatBytes(h.flatbuffer_size) << " at offset "
            << h.flatbuffer_offset << "; segment data " << FormatBytes(h.segment_data_size)
            << " from offset " << h.segment_base_offset << "\n";
  for (size_t i = 0; i < program.num_segments(); ++i) {
    const pte::Segment* s = program.flatbuffer()->segments()->Get(static_cast<uint32_t>(i));
    std::cout << "  segment " << i << ": " << FormatBytes(s->size()) << " at +" << s->offset()
              << "\n";
  }
  for (const MethodSummary& m : methods) {
    std::cout << "method " << m.name << "\n";
    for (const auto& [name, type] : m.inputs) std::cout << "  input  " << name << " " << type << "\n";
    for (const auto& [name, type] : m.outputs) std::cout << "  output " << name << " " << type << "\n";
    std::cout << "  " << (m.kernel_calls + m.delegate_calls) << " instructions (" << m.kernel_calls
              << " kernel calls, " << m.delegate_calls << " delegate calls), " << m.values
              << " values (" << m.tensors << " tensors, " << m.constants << " constants, "
              << FormatBytes(m.constant_bytes) << ")\n";
    uint64_t total = 0;
    for (uint64_t a : m.arenas) total += a;
    std::cout << "  arenas: " << m.arenas.size() << ", " << FormatBytes(total) << " planned";
    for (size_t i = 0; i < m.arenas.size(); ++i) {
      std::cout << (i == 0 ? " (" : ", ") << FormatBytes(m.arenas[i]);
    }
    std::cout << (m.arenas.empty() ? "" : ")") << "\n";
    const uint64_t macs = m.kernel_macs + m.delegate_macs;
    std::cout << "  MACs: " << macs << " (" << m.delegate_macs << " delegated";
    if (macs > 0) {
      char share[32];
      std::snprintf(share, sizeof(share), ", %.2f%%", 100.0 * m.delegate_macs / macs);
      std::cout << share;
    }
    std::cout << ")\n";
    std::cout << "  operators (" << m.operators.size() << "):";
    for (const auto& [name, calls] : m.operators) std::cout << " " << name << " x" << calls;
    std::cout << "\n";
    for (size_t i = 0; i < m.delegates.size(); ++i) {
      const auto& d = m.delegates[i];
      std::cout << "  delegate " << i << ": " << d.backend << ", blob "
                << FormatBytes(d.bytes) << " (segment " << d.segment << "), " << d.specs
                << " compile spec(s), " << d.macs << " MACs\n";
      if (!d.ops.empty()) {
        std::cout << "    took:";
        for (const auto& [op, count] : d.ops) std::cout << " " << op << " x" << count;
        std::cout << "\n";
      }
    }
  }
}

void PrintJson(const std::string& path, const torchir::runtime::Program& program,
               const std::vector<MethodSummary>& methods) {
  const pte::FileHeader& h = program.header();
  std::ostringstream o;
  o << "{\"file\": " << JsonString(path) << ", \"file_bytes\": " << program.file_size()
    << ", \"program_version\": " << program.flatbuffer()->version()
    << ", \"header_version\": " << h.version << ", \"flatbuffer_offset\": " << h.flatbuffer_offset
    << ", \"flatbuffer_bytes\": " << h.flatbuffer_size
    << ", \"segment_base_offset\": " << h.segment_base_offset << ", \"segments\": [";
  for (size_t i = 0; i < program.num_segments(); ++i) {
    const pte::Segment* s = program.flatbuffer()->segments()->Get(static_cast<uint32_t>(i));
    o << (i ? ", " : "") << "{\"offset\": " << s->offset() << ", \"bytes\": " << s->size() << "}";
  }
  o << "], \"methods\": [";
  for (size_t mi = 0; mi < methods.size(); ++mi) {
    const MethodSummary& m = methods[mi];
    auto io = [&](const std::vector<std::pair<std::string, std::string>>& list) {
      o << "[";
      for (size_t i = 0; i < list.size(); ++i) {
        o << (i ? ", " : "") << "{\"name\": " << JsonString(list[i].first)
          << ", \"type\": " << JsonString(list[i].second) << "}";
      }
      o << "]";
    };
    o << (mi ? ", " : "") << "{\"name\": " << JsonString(m.name) << ", \"inputs\": ";
    io(m.inputs);
    o << ", \"outputs\": ";
    io(m.outputs);
    o << ", \"kernel_calls\": " << m.kernel_calls << ", \"delegate_calls\": " << m.delegate_calls
      << ", \"values\": " << m.values << ", \"tensors\": " << m.tensors
      << ", \"constants\": " << m.constants << ", \"constant_bytes\": " << m.constant_bytes
      << ", \"kernel_macs\": " << m.kernel_macs << ", \"delegate_macs\": " << m.delegate_macs
      << ", \"arena_bytes\": [";
    for (size_t i = 0; i < m.arenas.size(); ++i) o << (i ? ", " : "") << m.arenas[i];
    o << "], \"operators\": [";
    for (size_t i = 0; i < m.operators.size(); ++i) {
      o << (i ? ", " : "") << "{\"name\": " << JsonString(m.operators[i].first)
        << ", \"calls\": " << m.operators[i].second << "}";
    }
    o << "], \"delegates\": [";
    for (size_t i = 0; i < m.delegates.size(); ++i) {
      const auto& d = m.delegates[i];
      o << (i ? ", " : "") << "{\"backend\": " << JsonString(d.backend)
        << ", \"segment\": " << d.segment << ", \"blob_bytes\": " << d.bytes
        << ", \"compile_specs\": " << d.specs << ", \"macs\": " << d.macs << ", \"ops\": {";
      size_t k = 0;
      for (const auto& [op, count] : d.ops) {
        o << (k++ ? ", " : "") << JsonString(op) << ": " << count;
      }
      o << "}}";
    }
    o << "]}";
  }
  o << "]}\n";
  std::cout << o.str();
}

}  // namespace

int main(int argc, char** argv) {
  torchir::cli::CommandLine cli("torchir-inspect", "torchir-inspect PROGRAM.pte [--json]",
                                kDescription);
  cli.AddPositional("PROGRAM.pte", "a program written by torchir-compile");
  cli.AddSwitch("json", "print one JSON object instead of text");
  cli.SetEpilog(kEpilog);
  cli.Parse(argc, argv);
  const std::string path = cli.positionals()[0];

  torchir::runtime::SetLogHook(CaptureLog);
  auto fail = [&](torchir::runtime::Error error) {
    std::string detail;
    for (const std::string& line : g_runtime_errors) detail += line + ": ";
    std::cerr << "error: " << path << ": " << detail << torchir::runtime::ErrorName(error) << "\n";
    return 1;
  };
  auto loader = torchir::runtime::FileDataLoader::Open(path.c_str());
  if (!loader.ok()) return fail(loader.error());
  auto program = torchir::runtime::Program::Load(*loader);
  if (!program.ok()) return fail(program.error());
  std::vector<MethodSummary> methods;
  for (const pte::Method* method : *program->flatbuffer()->methods()) {
    methods.push_back(Summarize(*method, *program));
  }
  if (cli.Switch("json")) {
    PrintJson(path, *program, methods);
  } else {
    PrintText(path, *program, methods);
  }
  return 0;
}
