#include "smt.hpp"

#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <unistd.h>

#include "infoflow/core/atomic_file.hpp"
#include "printers.hpp"

namespace infoflow::certify::detail {
namespace {

using GiNaC::ex;
using symbolic::RelOp;
using symbolic::Satisfiability;

std::string smt_op(RelOp op) {
  switch (op) {
    case RelOp::kLess: return "<";
    case RelOp::kLessEqual: return "<=";
    case RelOp::kGreater: return ">";
    case RelOp::kGreaterEqual: return ">=";
    case RelOp::kEqual: return "=";
    case RelOp::kNotEqual: return "distinct";
  }
  return "=";
}

/// `e op 0` with the denominator cleared: num*den op 0 and den != 0 (same sign as num/den).
std::string condition(const ex& e, RelOp op, const Names& names) {
  const ex normal = e.normal();
  const ex num = normal.numer().expand();
  const ex den = normal.denom().expand();
  const std::string zero = "0.0";
  if (GiNaC::is_a<GiNaC::numeric>(den)) {
    const bool flip = GiNaC::ex_to<GiNaC::numeric>(den).is_negative();
    const std::string lhs = smt_term(flip ? (-num).expand() : num, names);
    return "(" + smt_op(op) + " " + lhs + " " + zero + ")";
  }
  const std::string n = smt_term(num, names);
  const std::string d = smt_term(den, names);
  const bool sign_only = op == RelOp::kEqual || op == RelOp::kNotEqual;
  const std::string lhs = sign_only ? n : "(* " + n + " " + d + ")";
  return "(and (distinct " + d + " " + zero + ") (" + smt_op(op) + " " + lhs + " " + zero + "))";
}

std::optional<GiNaC::numeric> parse_value(const std::string& text) {
  // 6, 3.5, (- 2), (/ 7 2), (- (/ 7 2)), (/ (- 7) 2)
  std::string s;
  for (char c : text) s += (c == '(' || c == ')') ? ' ' : c;
  std::istringstream in(s);
  std::vector<std::string> tokens;
  for (std::string t; in >> t;) tokens.push_back(t);
  bool negative = false;
  std::vector<GiNaC::numeric> numbers;
  bool divide = false;
  for (const std::string& t : tokens) {
    if (t == "-") {
      negative = !negative;
    } else if (t == "/") {
      divide = true;
    } else {
      try {
        const auto dot = t.find('.');
        if (dot == std::string::npos) {
          numbers.emplace_back(t.c_str());
        } else {
          const std::string digits = t.substr(0, dot) + t.substr(dot + 1);
          const std::string den = "1" + std::string(t.size() - dot - 1, '0');
          numbers.emplace_back((digits + "/" + den).c_str());
        }
      } catch (...) {
        return std::nullopt;
      }
    }
  }
  if (numbers.empty() || numbers.size() > 2 || (numbers.size() == 2) != divide) return std::nullopt;
  GiNaC::numeric v = numbers.size() == 2 ? numbers[0] / numbers[1] : numbers[0];
  return negative ? -v : v;
}

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Runs a script; returns the answers between the echo markers "@@i".
std::map<std::size_t, std::string> run_script(const std::string& script, const std::string& cvc5,
                                              unsigned timeout_ms, bool& ran,
                                              const std::filesystem::path& in) {
  const std::filesystem::path out = in.string() + ".out";
  write_file_atomically(in, script);
  const std::string command = cvc5 + " --incremental --tlimit-per=" + std::to_string(timeout_ms) +
                              " --lang=smt2 " + in.string() + " > " + out.string() + " 2>&1";
  const int status = std::system(command.c_str());
  const std::string text = read_text(out);
  std::error_code ignored;
  std::filesystem::remove(out, ignored);
  ran = status != -1 && text.find("@@") != std::string::npos;
  std::map<std::size_t, std::string> answers;
  std::istringstream lines(text);
  std::string current;
  for (std::string line; std::getline(lines, line);) {
    const auto at = line.find("@@");
    std::size_t index = 0;
    // The solver's echo of a marker, "@@INDEX"; any other line is part of an answer.
    if (at != std::string::npos &&
        std::from_chars(line.data() + at + 2, line.data() + line.size(), index).ec == std::errc()) {
      answers[index] = current;
      current.clear();
    } else {
      current += line + "\n";
    }
  }
  return answers;
}

Satisfiability verdict(const std::string& answer) {
  std::istringstream in(answer);
  std::string first;
  in >> first;
  if (first == "sat") return Satisfiability::kSatisfiable;
  if (first == "unsat") return Satisfiability::kUnsatisfiable;
  return Satisfiability::kUnknown;
}

}  // namespace

std::string smt_question(const symbolic::JournalEntry& entry, bool integers) {
  std::vector<ex> parts;
  for (const symbolic::Constraint& c : entry.domain) parts.push_back(c.expr);
  if (entry.has_relation) parts.push_back(entry.expr);
  const std::vector<const symbolic::SymbolInfo*> symbols = symbols_in(parts);
  Names names;
  std::string out;
  for (const symbolic::SymbolInfo* s : symbols) {
    const std::string id = "v_" + identifier(s->name);
    const bool as_int = integers && s->integer;
    out += "(declare-fun " + id + " () " + (as_int ? "Int" : "Real") + ")\n";
    names[s] = as_int ? "(to_real " + id + ")" : id;
  }
  for (const symbolic::SymbolInfo* s : symbols) {
    out += "(assert " + condition(s->symbol - s->lower, s->lower_strict ? RelOp::kGreater : RelOp::kGreaterEqual, names) + ")\n";
    if (s->upper) out += "(assert " + condition(s->symbol - *s->upper, RelOp::kLess, names) + ")\n";
  }
  for (const symbolic::Constraint& c : implicit_constraints(symbols))
    out += "(assert " + condition(c.expr, c.op, names) + ")\n";
  for (const symbolic::Constraint& c : entry.domain) out += "(assert " + condition(c.expr, c.op, names) + ")\n";
  if (entry.has_relation) out += "(assert " + condition(entry.expr, entry.op, names) + ")\n";
  return out;
}

Cvc5Result run_cvc5(const symbolic::Journal& journal, const std::string& cvc5, unsigned timeout_ms,
                    const std::filesystem::path& dir) {
  Cvc5Result result;
  const std::size_t n = journal.entries.size();
  result.answers.assign(n, Satisfiability::kUnknown);
  result.models.assign(n, std::nullopt);
  const auto decided = [&](std::size_t i) {
    return journal.entries[i].result.status != Satisfiability::kUnknown;
  };
  // Pass 1: the real relaxation (fast; unsat there is unsat over the integers too).
  std::map<std::size_t, std::string> real_questions;
  std::map<std::size_t, std::string> int_questions;
  std::string script = "(set-logic ALL)\n";
  for (std::size_t i = 0; i < n; ++i) {
    if (!decided(i)) continue;
    try {
      real_questions[i] = smt_question(journal.entries[i], false);
      int_questions[i] = smt_question(journal.entries[i], true);
    } catch (const NotPrintable&) {
      continue;
    }
    script += "(push 1)\n" + real_questions[i] + "(check-sat)\n(echo \"@@" + std::to_string(i) + "\")\n(pop 1)\n";
  }
  bool ran = false;
  const std::map<std::size_t, std::string> first = run_script(script, cvc5, timeout_ms, ran, dir / "cvc5_relaxed.smt2");
  result.ran = ran;
  if (!ran) return result;
  // Pass 2: where the relaxation has a point, the question itself (integer symbols as Int).
  std::string exact = "(set-logic ALL)\n";
  bool any = false;
  for (const auto& [i, answer] : first) {
    const Satisfiability v = verdict(answer);
    const bool has_integers = int_questions[i] != real_questions[i];
    if (v == Satisfiability::kUnsatisfiable || !has_integers) {
      result.answers[i] = v;
      continue;
    }
    exact += "(push 1)\n" + int_questions[i] + "(check-sat)\n(echo \"@@" + std::to_string(i) + "\")\n(pop 1)\n";
    any = true;
  }
  if (any) {
    for (const auto& [i, answer] : run_script(exact, cvc5, timeout_ms, ran, dir / "cvc5_exact.smt2")) result.answers[i] = verdict(answer);
  }
  std::map<std::size_t, std::string>& questions = int_questions;
  // Pass 3: a point where cvc5 finds one and Z3 said there is none.
  std::string models = "(set-logic ALL)\n(set-option :produce-models true)\n";
  any = false;
  for (const auto& [i, q] : questions) {
    // Where Z3 found no point, or found one it could not state exactly.
    const symbolic::SatResult& z3 = journal.entries[i].result;
    const bool wanted = z3.status == Satisfiability::kUnsatisfiable ||
                        (z3.status == Satisfiability::kSatisfiable && !z3.witness);
    if (result.answers[i] != Satisfiability::kSatisfiable || !wanted) continue;
    std::string vars;
    std::istringstream decls(q);
    for (std::string line; std::getline(decls, line);) {
      if (line.rfind("(declare-fun ", 0) == 0) vars += " " + line.substr(13, line.find(' ', 13) - 13);
    }
    if (vars.empty()) continue;
    models += "(push 1)\n" + q + "(check-sat)\n(get-value (" + vars + "))\n(echo \"@@" +
              std::to_string(i) + "\")\n(pop 1)\n";
    any = true;
  }
  if (!any) return result;
  for (const auto& [i, answer] : run_script(models, cvc5, timeout_ms, ran, dir / "cvc5_models.smt2")) {
    std::vector<ex> parts;
    for (const symbolic::Constraint& c : journal.entries[i].domain) parts.push_back(c.expr);
    if (journal.entries[i].has_relation) parts.push_back(journal.entries[i].expr);
    symbolic::Witness w;
    bool complete = true;
    for (const symbolic::SymbolInfo* s : symbols_in(parts)) {
      const std::string key = "(v_" + identifier(s->name) + " ";
      const auto at = answer.find(key);
      if (at == std::string::npos) {
        complete = false;
        break;
      }
      // The value runs to the parenthesis that closes this pair.
      std::size_t depth = 1;
      std::size_t end = at + key.size();
      for (; end < answer.size() && depth > 0; ++end) {
        if (answer[end] == '(') ++depth;
        if (answer[end] == ')') --depth;
      }
      const std::optional<GiNaC::numeric> v = parse_value(answer.substr(at + key.size(), end - 1 - at - key.size()));
      if (!v) {
        complete = false;
        break;
      }
      w.values.emplace_back(s, *v);
    }
    if (complete) result.models[i] = std::move(w);
  }
  return result;
}

}  // namespace infoflow::certify::detail
