// The LaTeX a theorist pastes into a paper: compiled with pdflatex (when installed) and judged by
// its log: no overfull box, no undefined reference or citation, no missing glyph; and the
// deterministic outputs against golden files (tests/data/golden; regenerate them with
// INFOFLOW_UPDATE_GOLDEN=1 and read the diff).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include "common/cli.hpp"
#include "common/temp_catalogue.hpp"
#include "common/temp_dir.hpp"

using infoflow::testing::contains;
using infoflow::testing::run;
using infoflow::testing::Run;
using infoflow::testing::TempCatalogue;
using infoflow::testing::TempDir;
namespace fs = std::filesystem;

namespace {

std::string read(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool have_pdflatex() {
  if (std::system("command -v pdflatex >/dev/null 2>&1") == 0) return true;
  BOOST_TEST_REQUIRE(std::getenv("INFOFLOW_REQUIRE_PDFLATEX") == nullptr,
                     "pdflatex is required here but not installed");
  BOOST_TEST_MESSAGE("pdflatex not installed: skipped compiling the LaTeX (apt-get install "
                     "texlive-latex-base texlive-latex-recommended)");
  return false;
}

/// What pdflatex's log says about a document compiled twice (references settle on the second).
struct Compiled {
  bool ok = false;
  int overfull = 0;
  int undefined = 0;  ///< references and citations
  int multiply = 0;   ///< labels defined twice
  int missing = 0;    ///< glyphs a font lacks
  std::string log;
};

Compiled compile(const fs::path& dir, const std::string& stem) {
  const std::string command = "cd '" + dir.string() +
                              "' && pdflatex -interaction=nonstopmode -halt-on-error " + stem +
                              ".tex > /dev/null 2>&1";
  Compiled c;
  c.ok = std::system(command.c_str()) == 0 && std::system(command.c_str()) == 0;
  c.log = read(dir / (stem + ".log"));
  const auto count = [&](const std::regex& re) {
    return static_cast<int>(std::distance(
        std::sregex_iterator(c.log.begin(), c.log.end(), re), std::sregex_iterator()));
  };
  c.overfull = count(std::regex(R"(Overfull \\[hv]box)"));
  c.undefined = count(std::regex(R"((Reference|Citation) `[^']*' on page \d+ undefined)"));
  c.multiply = count(std::regex(R"(Label `[^']*' multiply defined)"));
  c.missing = count(std::regex("Missing character"));
  return c;
}

void check_clean(const fs::path& dir, const std::string& stem) {
  const Compiled c = compile(dir, stem);
  BOOST_TEST_REQUIRE(c.ok, stem << ".tex failed to compile: " << c.log.substr(0, 2000));
  const std::size_t first = c.log.find("Overfull");
  BOOST_TEST(c.overfull == 0, stem << ".tex: " << c.overfull << " overfull boxes, first: "
                                   << (first == std::string::npos ? "" : c.log.substr(first, 300)));
  BOOST_TEST(c.undefined == 0, stem << ".tex: undefined references or citations");
  BOOST_TEST(c.multiply == 0, stem << ".tex: labels defined twice");
  BOOST_TEST(c.missing == 0, stem << ".tex: missing glyphs");
}

/// The output against its golden file; INFOFLOW_UPDATE_GOLDEN=1 rewrites the file instead.
void check_golden(const std::string& name, const std::string& output) {
  const fs::path golden = fs::path(INFOFLOW_TEST_DATA_DIR) / "golden" / name;
  if (std::getenv("INFOFLOW_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(golden) << output;
    BOOST_TEST_MESSAGE("rewrote " << golden);
    return;
  }
  BOOST_TEST_REQUIRE(fs::exists(golden), golden << " is missing (INFOFLOW_UPDATE_GOLDEN=1)");
  BOOST_TEST(read(golden) == output, name << " differs from its golden file (if the change is "
                                             "intended: INFOFLOW_UPDATE_GOLDEN=1, then read the "
                                             "diff)");
}

/// The first label `tex` defines whose key starts with `kind`.
std::string label_of(const std::string& tex, const std::string& kind) {
  std::smatch m;
  const std::regex re("\\\\label\\{(" + kind + "[^}]*)\\}");
  BOOST_TEST_REQUIRE(std::regex_search(tex, m, re), "no label " << kind << "... in " << tex.substr(0, 400));
  return m[1].str();
}

/// What \ref{label} prints, from a compiled document's .aux ("\newlabel{KEY}{{7}{3}}").
std::string ref_text(const fs::path& aux, const std::string& label) {
  const std::string text = read(aux);
  const std::string key = "\\newlabel{" + label + "}{{";
  const std::size_t at = text.find(key);
  if (at == std::string::npos) return "";
  const std::size_t from = at + key.size();
  return text.substr(from, text.find('}', from) - from);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(latex)

BOOST_AUTO_TEST_CASE(identifiers_are_escaped_for_text_and_math) {
  const Run r = run("table --of both");
  BOOST_TEST_REQUIRE(r.code == 0);
  // "h = s < D" in text mode would print as an inverted exclamation mark in OT1.
  BOOST_TEST(contains(r.out, "h = s \\textless{} D"));
  BOOST_TEST(!contains(r.out, " < D]"));
  // A theorem's own constant is a short symbol, its entry's number in the catalogue table,
  // named in the caption's legend.
  BOOST_TEST(contains(r.out, "c^{(4)}"));
  BOOST_TEST(!contains(r.out, "\\mathrm{head"));
  BOOST_TEST(contains(r.out, "(4) \\texttt{head\\_\\allowbreak{}count.\\allowbreak{}depth"));
  // Labels from ids, citations with theorem numbers, the table's own label.
  BOOST_TEST(contains(r.out, "7\\infoflowlabel{7}{entry:infoflow.thm2.kth-max}"));
  BOOST_TEST(contains(r.out, "\\cite[Theorem~2]{yu2026infoflow}"));
  BOOST_TEST(contains(r.out, "\\label{tab:infoflow-catalogue}"));
  BOOST_TEST(contains(r.out, "\\label{tab:infoflow-findings}"));
  // Every finding's witnesses are in math, each value its own group.
  BOOST_TEST(contains(r.out, "$T = 2$"));
}

BOOST_AUTO_TEST_CASE(the_shipped_bibliography_holds_every_cited_key) {
  const std::string bib = read(fs::path(INFOFLOW_CATALOGUE_DIR) / "references.bib");
  const Run r = run("table --of both");
  const std::regex cite(R"(\\cite(?:\[[^\]]*\])?\{([^}]*)\})");
  int cites = 0;
  for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), cite); it != std::sregex_iterator();
       ++it) {
    std::stringstream keys((*it)[1].str());
    for (std::string key; std::getline(keys, key, ',');) {
      ++cites;
      BOOST_TEST(contains(bib, "{" + key + ","), key << " is not in references.bib");
    }
  }
  BOOST_TEST(cites > 10);
}

BOOST_AUTO_TEST_CASE(catalogue_and_findings_compile_without_overfull_boxes) {
  const TempDir t;
  BOOST_TEST_REQUIRE(run("table --of catalogue --standalone -o " + (t.dir() / "cat.tex").string()).code == 0);
  BOOST_TEST_REQUIRE(run("table --of findings --standalone -o " + (t.dir() / "find.tex").string()).code == 0);
  BOOST_TEST_REQUIRE(run("check --format latex -o " + (t.dir() / "check.tex").string()).code == 1);
  if (!have_pdflatex()) return;
  check_clean(t.dir(), "cat");
  check_clean(t.dir(), "find");
}

BOOST_AUTO_TEST_CASE(derivations_compile_without_overfull_boxes) {
  const TempDir t;
  const std::string file = std::string(INFOFLOW_TARGETS_FILE);
  BOOST_TEST_REQUIRE(run("derive " + file + " --heads 2,2 --format latex --standalone -o " +
                         (t.dir() / "derive.tex").string())
                         .code == 0);
  BOOST_TEST_REQUIRE(run("derive " + file + " --format latex --standalone -o " +
                         (t.dir() / "search.tex").string())
                         .code == 0);
  const std::string tex = read(t.dir() / "derive.tex");
  BOOST_TEST(contains(tex, "\\caption{Costs derived"));
  BOOST_TEST(contains(tex, "\\label{tab:derivations-"));
  BOOST_TEST(contains(tex, "\\min_{t_{1} < t_{2} < t_{3}} \\lVert x_{t_{1}} + x_{t_{2}} + x_{t_{3}} \\rVert^{2}"));
  BOOST_TEST(!contains(tex, "2*T"));
  if (!have_pdflatex()) return;
  check_clean(t.dir(), "derive");
  check_clean(t.dir(), "search");
}

BOOST_AUTO_TEST_CASE(every_entry_shows_as_latex_that_compiles) {
  const nlohmann::json list = nlohmann::json::parse(run("list --format json").out);
  const TempDir t;
  std::string body;
  for (const nlohmann::json& e : list["entries"]) {
    const std::string id = e["id"].get<std::string>();
    const Run r = run("show " + id + " --format latex");
    BOOST_TEST_REQUIRE(r.code == 0);
    BOOST_TEST(contains(r.out, "}{entry:"), id);
    BOOST_TEST(contains(r.out, "\\["), id);  // the bound in display math
    body += r.out;
  }
  // One standalone entry, with its bibliography; then all of them in one document.
  BOOST_TEST_REQUIRE(run("show infoflow.thm2.kth_max --format latex --standalone -o " +
                         (t.dir() / "one.tex").string())
                         .code == 0);
  const std::string one = read(t.dir() / "one.tex");
  BOOST_TEST(contains(one, "\\cite[Theorem~2]{yu2026infoflow}"));
  BOOST_TEST(contains(one, "In the setting $L = 1$, under $k \\ge 2$"));
  BOOST_TEST(contains(one, "\\bibitem{yu2026infoflow}"));
  std::ofstream(t.dir() / "all.tex")
      << "\\documentclass{article}\n\\usepackage{amsmath}\n\\begin{document}\n"
      << body << "\\end{document}\n";
  if (!have_pdflatex()) return;
  check_clean(t.dir(), "one");
  const Compiled all = compile(t.dir(), "all");
  BOOST_TEST(all.ok);
  BOOST_TEST(all.overfull == 0);
  BOOST_TEST(all.missing == 0);
}

BOOST_AUTO_TEST_CASE(a_user_extended_catalogue_compiles_too) {
  // A user's entry: a long id full of underscores, a source with <, |, & and %.
  TempCatalogue c;
  c.write("mine.toml",
          "[paper]\nid = \"mine\"\ntitle = \"My_paper & notes, 100% <draft>\"\nauthors = \"Me\"\n"
          "cite = \"me2027\"\n\n[[entry]]\nid = \"mine.a_very_long_identifier_of_my_own_theorem\"\n"
          "source = \"Lemma 4 | case s < D & 50%\"\nprovenance = \"conjecture\"\nkind = \"upper\"\n"
          "quantity = \"M\"\ntask = \"d_retrieval\"\ndepth = \"L == 1\"\nheads = \"h == s\"\n"
          "hypotheses = [\"s < D\", \"T >= 4*D\"]\n"
          "rate = \"eps^(-((T/4 - s - D + 1)/((n+1)*s + 1) + gamma))*log(1/eps)^2\"\n");
  const TempDir t;
  const std::string cat = "--catalogue " + c.dir().string() + " ";
  BOOST_TEST_REQUIRE(run(cat + "table --of both --standalone -o " + (t.dir() / "mine.tex").string()).code == 0);
  const std::string tex = read(t.dir() / "mine.tex");
  BOOST_TEST(contains(tex, "\\cite[Lemma 4 \\textbar{} case s \\textless{} D \\& 50\\%]{me2027}"));
  BOOST_TEST(contains(tex, "\\bibitem{me2027}"));
  if (!have_pdflatex()) return;
  check_clean(t.dir(), "mine");
}

BOOST_AUTO_TEST_CASE(outputs_combined_in_one_paper_compile_in_one_and_two_columns) {
  // table --of both, show ID and two derive outputs in one paper at 11pt with 1in margins, each
  // referenced: as article and as article[twocolumn] (--columns 2: table* floats), no error, no
  // undefined or doubly defined label, no overfull box; \ref to an entry prints the table's
  // number whether the table or show comes first.
  const nlohmann::json list = nlohmann::json::parse(run("list --format json").out);
  std::size_t number = 0;
  for (std::size_t i = 0; i < list["entries"].size(); ++i) {
    if (list["entries"][i]["id"] == "infoflow.thm2.kth_max") number = i + 1;
  }
  BOOST_TEST_REQUIRE(number > 0);
  for (const int columns : {1, 2}) {
    const TempDir t;
    const std::string c = " --columns " + std::to_string(columns) + " -o " + t.dir().string() + "/";
    BOOST_TEST_REQUIRE(run("table --of both" + c + "table.tex").code == 0);
    BOOST_TEST_REQUIRE(run("show infoflow.thm2.kth_max --format latex" + c + "show.tex").code == 0);
    BOOST_TEST_REQUIRE(run("derive 'max(s != t) dot(x[s], x[t])' --heads 1 --format latex" + c +
                           "one.tex").code == 0);
    BOOST_TEST_REQUIRE(run("derive 'kth(2, t) dot(a, x[t])' --heads 1,1 --format latex" + c +
                           "two.tex").code == 0);
    const std::string one = read(t.dir() / "one.tex");
    const std::string two = read(t.dir() / "two.tex");
    BOOST_TEST(contains(one, columns == 2 ? "\\begin{table*}" : "\\begin{longtable}"));
    // Two formulas without --name: labels told apart by what they derive.
    const std::string targets[2] = {label_of(one, "target:"), label_of(two, "target:")};
    const std::string tables[2] = {label_of(one, "tab:derivations"), label_of(two, "tab:derivations")};
    BOOST_TEST(targets[0] != targets[1]);
    BOOST_TEST(tables[0] != tables[1]);
    const std::string entry = "entry:infoflow.thm2.kth-max";
    std::ofstream(t.dir() / "paper.tex")
        << "\\documentclass[11pt" << (columns == 2 ? ",twocolumn" : "") << "]{article}\n"
        << "\\usepackage[margin=1in]{geometry}\n\\usepackage{amsmath}\n\\usepackage{booktabs}\n"
        << "\\usepackage{longtable}\n\\usepackage{array}\n\\begin{document}\n"
        << "Entry~\\ref{" << entry << "} of Table~\\ref{tab:infoflow-catalogue}; Tables~\\ref{"
        << tables[0] << "} and~\\ref{" << tables[1] << "} (rows \\ref{" << targets[0] << "} and \\ref{"
        << targets[1] << "}).\n\\input{show}\n\\input{table}\n\\input{one}\n\\input{two}\n"
        << "\\begin{thebibliography}{9}\n\\bibitem{yu2026headcount} Head count.\n"
        << "\\bibitem{yu2026infoflow} InfoFlow.\n\\end{thebibliography}\n\\end{document}\n";
    if (!have_pdflatex()) return;
    check_clean(t.dir(), "paper");
    BOOST_TEST(ref_text(t.dir() / "paper.aux", entry) == std::to_string(number), columns);
    BOOST_TEST(!contains(read(t.dir() / "paper.log"), "Float too large"), columns);
  }
}

BOOST_AUTO_TEST_CASE(labels_take_a_prefix_and_a_formula_a_name) {
  const std::string formula = "derive 'max(s != t) dot(x[s], x[t])' --heads 1 --format latex";
  // The same derivation gives the same labels on every run: a hash of what it derives.
  BOOST_TEST(label_of(run(formula).out, "target:") == label_of(run(formula).out, "target:"));
  BOOST_TEST(contains(run(formula + " --name pairs").out, "\\label{target:pairs-h1}"));
  const Run prefixed = run(formula + " --name pairs --label-prefix sec2");
  BOOST_TEST(contains(prefixed.out, "\\label{sec2:target:pairs}"));
  BOOST_TEST(contains(prefixed.out, "\\label{sec2:tab:derivations}"));
  const Run table = run("table --of both --label-prefix app");
  BOOST_TEST(contains(table.out, "{app:entry:infoflow.thm2.kth-max}"));
  BOOST_TEST(contains(table.out, "\\label{app:tab:infoflow-catalogue}"));
  BOOST_TEST(contains(table.out, "\\label{app:tab:infoflow-findings}"));
  BOOST_TEST(contains(run("show infoflow.thm2.kth_max --format latex --label-prefix app").out,
                      "{app:entry:infoflow.thm2.kth-max}"));
  BOOST_TEST(contains(run("check --format latex --label-prefix app").out,
                      "\\label{app:tab:infoflow-findings}"));
  // Refused with the reason: a prefix a label cannot hold, LaTeX options without LaTeX, a
  // formula's name a target file would refuse.
  const Run bad = run("table --label-prefix 'a b'");
  BOOST_TEST(bad.code == 2);
  BOOST_TEST(contains(bad.out, "--label-prefix 'a b'"));
  const Run text = run("show infoflow.thm2.kth_max --label-prefix app");
  BOOST_TEST(text.code == 2);
  BOOST_TEST(contains(text.out, "--label-prefix needs --format latex"));
  BOOST_TEST(run("derive 'max(t) dot(a, x[t])' --columns 2").code == 2);
  BOOST_TEST(run("table --columns 3").code != 0);
  const Run name = run("derive 'max(t) dot(a, x[t])' --name 'a-b'");
  BOOST_TEST(name.code == 2);
  BOOST_TEST(contains(name.out, "letters, digits and '_' only"));
  BOOST_TEST(contains(run("derive 'max(t) dot(a, x[t])' --name top").out, "target top:"));
}

BOOST_AUTO_TEST_CASE(a_users_own_result_is_printed_as_given) {
  TempCatalogue c;
  c.write("ours.toml",
          "[paper]\nid = \"ours\"\ntitle = \"Notes on two-layer retrieval\"\ncite = \"me2026\"\n"
          "year = 2026\n\n[[entry]]\nid = \"ours.prop3\"\nsource = \"Prop. 3\"\n"
          "provenance = \"ours\"\nprovenance_label = \"Prop. 3 of our paper\"\nkind = \"upper\"\n"
          "quantity = \"M\"\ntask = \"d_retrieval\"\ndepth = \"L == 2\"\nrate = \"eps^(-1)\"\n\n"
          "[[entry]]\nid = \"ours.prop4\"\nsource = \"Prop. 4\"\nprovenance = \"ours\"\n"
          "kind = \"upper\"\nquantity = \"M\"\ntask = \"d_retrieval\"\ndepth = \"L == 3\"\n"
          "rate = \"eps^(-1)\"\n");
  const std::string cat = "--catalogue " + c.dir().string() + " ";
  const Run show = run(cat + "show ours.prop3 --format latex");
  BOOST_TEST_REQUIRE(show.code == 0);
  BOOST_TEST(contains(show.out, "upper bound (Prop. 3 of our paper)"));
  BOOST_TEST(!contains(show.out, "predecessor"));
  BOOST_TEST(contains(run(cat + "show ours.prop4").out, "provenance: ours"));
  BOOST_TEST(contains(run(cat + "list").out, "Prop. 3 of our paper"));
  const Run table = run(cat + "table --standalone");
  BOOST_TEST(contains(table.out, "Prop. 3 of our paper, upper bound"));
  BOOST_TEST(contains(table.out, "ours, upper bound"));
  // The paper has no authors and no reference: its bibliography item leaves them out.
  BOOST_TEST(contains(table.out, "\\bibitem{me2026} \\emph{Notes on two-layer retrieval}. 2026.\n"));
  BOOST_TEST(run(cat + "list --format json").out.find("\"provenance_label\": \"Prop. 3 of our paper\"") !=
             std::string::npos);
  // Any other word is refused, with the words there are.
  c.replace("ours.toml", "provenance = \"ours\"\nprovenance_label", "provenance = \"mine\"\nprovenance_label");
  const Run refused = run(cat + "list");
  BOOST_TEST(refused.code == 2);
  BOOST_TEST(contains(refused.out, "ours.toml:10:"));
  BOOST_TEST(contains(refused.out, "conjecture, ours"));
}

BOOST_AUTO_TEST_CASE(golden_catalogue_table) {
  const Run r = run("table --of catalogue");
  BOOST_TEST_REQUIRE(r.code == 0);
  check_golden("catalogue.tex", r.out);
}

BOOST_AUTO_TEST_CASE(golden_derivation_table) {
  const Run r = run("derive " + std::string(INFOFLOW_TARGETS_FILE) + " --heads 2,2 --format latex");
  BOOST_TEST_REQUIRE(r.code == 0);
  check_golden("derivations.tex", r.out);
}

BOOST_AUTO_TEST_SUITE_END()
