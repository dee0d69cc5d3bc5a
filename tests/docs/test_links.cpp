// Every relative markdown link of README.md and docs/*.md names a file or folder that exists
// (issue 45): a moved folder leaves no reader at a dead end. Web links and pure #anchors are
// not checked; an anchor after a path is dropped before the path is looked up.

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

namespace fs = std::filesystem;

namespace {

/// The markdown's text outside fenced code blocks and inline code spans, where a bracket and
/// a parenthesis are code, not a link.
std::string prose_of(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  std::string prose;
  bool fenced = false;
  while (std::getline(in, line)) {
    if (line.rfind("```", 0) == 0) {
      fenced = !fenced;
      continue;
    }
    if (fenced) continue;
    bool code = false;
    for (const char c : line) {
      if (c == '`') code = !code;
      else if (!code) prose += c;
    }
    prose += '\n';
  }
  return prose;
}

/// "file:line-free target" for each relative link of `file` whose path does not exist.
std::vector<std::string> dead_links_of(const fs::path& file) {
  static const std::regex link(R"(\]\(([^)\s]+)(\s+"[^"]*")?\))");
  std::vector<std::string> dead;
  const std::string prose = prose_of(file);
  for (auto it = std::sregex_iterator(prose.begin(), prose.end(), link);
       it != std::sregex_iterator(); ++it) {
    std::string target = (*it)[1].str();
    if (target.rfind("http://", 0) == 0 || target.rfind("https://", 0) == 0 ||
        target.rfind("mailto:", 0) == 0 || target.front() == '#') {
      continue;
    }
    target = target.substr(0, target.find('#'));
    if (!fs::exists(file.parent_path() / target)) dead.push_back(file.string() + ": " + target);
  }
  return dead;
}

}  // namespace

BOOST_AUTO_TEST_CASE(relative_links_name_existing_files) {
  const fs::path source = INFOFLOW_SOURCE_DIR;
  std::vector<fs::path> pages{source / "README.md"};
  for (const auto& entry : fs::directory_iterator(source / "docs")) {
    if (entry.path().extension() == ".md") pages.push_back(entry.path());
  }
  BOOST_TEST_REQUIRE(pages.size() > 5u);  // README and the docs were found

  // The check finds a dead link, and only that one, in a page written for it.
  const fs::path probe = fs::temp_directory_path() / "infoflow_links_probe.md";
  std::ofstream(probe) << "[ok](" << (source / "README.md").string() << "#layout) [web](https://x)"
                       << " [anchor](#a) `[code](missing.md)`\n![dead](no/such/file.png)\n";
  const std::vector<std::string> probed = dead_links_of(probe);
  fs::remove(probe);
  BOOST_TEST_REQUIRE(probed.size() == 1u);
  BOOST_TEST(probed.front() == probe.string() + ": no/such/file.png");

  for (const fs::path& page : pages) {
    for (const std::string& dead : dead_links_of(page)) BOOST_ERROR("dead link: " << dead);
  }
}
