#ifndef INFOFLOW_APP_CERTIFY_OPTIONS_HPP_
#define INFOFLOW_APP_CERTIFY_OPTIONS_HPP_

// The --certify options check and compare share.

#include <string>

#include <CLI/CLI.hpp>

#include "infoflow/certify.hpp"

namespace infoflow::app {

struct CertifyFlags {
  std::string directory;  ///< empty: no certificates
  bool no_coq = false;
  bool no_cvc5 = false;

  void add_to(CLI::App& cmd);
  [[nodiscard]] bool wanted() const { return !directory.empty(); }
  /// Writes and checks the certificates; sets exit code 3 when a statement is false.
  certify::Summary run(const symbolic::Journal& journal, int& exit_code) const;
};

/// "certificates: ..." and one line per fact that is not re-proved.
std::string certificate_text(const certify::Summary& summary);

}  // namespace infoflow::app

#endif  // INFOFLOW_APP_CERTIFY_OPTIONS_HPP_
