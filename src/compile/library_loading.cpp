#include "compile/library_loading.hpp"

#include <dlfcn.h>

#include <cstdlib>

#include "core/log.hpp"

namespace jitvec::compile {

std::string last_dlerror() {
  const char* message = dlerror();
  return message != nullptr ? message : "no reason given";
}

void report_load_failure(const char* variable, const std::string& error) {
  const char* configured = std::getenv(variable);
  if (configured != nullptr && *configured != '\0') {
    jitvec::detail::log().warn("{}='{}' does not work: {}", variable, configured, error);
  } else {
    jitvec::detail::log().debug("{}", error);
  }
}

}  // namespace jitvec::compile
