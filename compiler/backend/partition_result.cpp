#include "compiler/backend/partition_result.h"

namespace torchir::backend {

uint64_t PartitionResult::DelegatedMacs() const {
  uint64_t macs = 0;
  for (const DelegateSummary& delegate : delegates) macs += delegate.macs;
  return macs;
}

uint64_t Partitioning::DelegatedMacs() const {
  uint64_t macs = 0;
  for (const BackendPartition& backend : backends) macs += backend.result.DelegatedMacs();
  return macs;
}

double Partitioning::DelegatedMacShare() const {
  return total_macs == 0 ? 1.0
                         : static_cast<double>(DelegatedMacs()) / static_cast<double>(total_macs);
}

}  // namespace torchir::backend
