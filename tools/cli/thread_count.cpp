#include "tools/cli/thread_count.h"

#include <thread>

namespace torchir::cli {

std::string ThreadCountWarning(unsigned threads, unsigned cores) {
  if (cores == 0 || threads <= cores) return "";
  return "--threads " + std::to_string(threads) + " exceeds the " + std::to_string(cores) +
         " core" + (cores == 1 ? "" : "s") +
         " of this machine; the extra threads only take turns with the others (running anyway)";
}

std::string ThreadCountWarning(unsigned threads) {
  return ThreadCountWarning(threads, std::thread::hardware_concurrency());
}

}  // namespace torchir::cli
