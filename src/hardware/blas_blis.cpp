// The linked BLAS is BLIS (SHARDROOF_BLAS=BLIS), through its CBLAS layer.
#include <blis.h>

#include <string>

#include "hardware/blas_library.h"

namespace shardroof::hw {

BlasFamily linked_blas_family() { return BlasFamily::Blis; }

bool set_blas_threads(int threads) {
  bli_init();
  bli_thread_set_num_threads(threads);
  return true;
}

namespace detail {

BlasInfo linked_library() {
  // BLIS chooses its configuration in bli_init(), reading BLIS_ARCH_TYPE
  // there; a query before it reads an uninitialised table.
  bli_init();
  BlasInfo info;
  info.family = BlasFamily::Blis;
  info.library = "BLIS";
  info.version = bli_info_get_version_str();
  info.kernel = bli_arch_string(bli_arch_query_id());
  info.config = "BLIS " + info.version + ", configuration " + info.kernel + ", integers of " +
                std::to_string(bli_info_get_int_type_size()) + " bits";
  // BLIS 0.9.0 reads BLIS_ARCH_TYPE as a number, its arch_t.
  for (int id = 0; id < BLIS_NUM_ARCHS; ++id)
    info.kernel_settings.emplace_back(bli_arch_string(static_cast<arch_t>(id)), std::to_string(id));
  return info;
}

}  // namespace detail
}  // namespace shardroof::hw
