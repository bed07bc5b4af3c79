// A command's options in groups and their --help text (see options.hpp).
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "options.hpp"

namespace lsgl::cli {

namespace {

constexpr std::size_t kWidth = 100;     // columns of the help text
constexpr std::size_t kLeft = 32;       // where the descriptions start
constexpr const char* kAll = "all";     // --help all

// `text` wrapped at kWidth, every line but the first indented by kLeft.
std::string wrapped(const std::string& text, std::size_t column) {
  std::istringstream words(text);
  std::string out, word;
  std::size_t at = column;
  bool first = true;
  while (words >> word) {
    if (!first && at + 1 + word.size() > kWidth) {
      out += "\n" + std::string(kLeft, ' ');
      at = kLeft;
    } else if (!first) {
      out += ' ';
      ++at;
    }
    out += word;
    at += word.size();
    first = false;
  }
  return out;
}

bool is_flag(const po::option_description& o) {
  return dynamic_cast<const po::typed_value<bool>*>(o.semantic().get()) != nullptr;
}

// One option: "  --k arg (=10)   description", the description wrapped.
std::string option_text(const po::option_description& o) {
  std::string left = "  --" + o.long_name();
  if (o.long_name() == "help")
    left += " [GROUP]";
  else if (!is_flag(o))
    left += " " + o.format_parameter();
  if (left.size() + 2 > kLeft)
    return left + "\n" + std::string(kLeft, ' ') + wrapped(o.description(), kLeft) + "\n";
  return left + std::string(kLeft - left.size(), ' ') + wrapped(o.description(), kLeft) + "\n";
}

}  // namespace

po::options_description& OptionGroups::group(const std::string& topic, const std::string& title,
                                             bool common) {
  groups_.push_back({topic, title, common, std::make_unique<po::options_description>(title)});
  return *groups_.back().options;
}

const po::options_description& OptionGroups::all() {
  if (all_) return *all_;
  auto& general = group("general", "Help and configuration");
  general.add_options()
      ("help", po::bool_switch(),
       "this help; GROUP: one group of options, all: every group")
      ("config", po::value<std::string>(),
       "INI-style file of 'option = value' lines (the command line overrides it)");
  all_ = std::make_unique<po::options_description>();
  for (const Group& g : groups_) all_->add(*g.options);
  return *all_;
}

std::string OptionGroups::help_text(const std::string& topic) {
  all();
  std::string shown, hidden, out;
  bool known = topic.empty() || topic == kAll;
  for (const Group& g : groups_) {
    known = known || g.topic == topic;
    (g.common ? shown : hidden) += (g.common ? shown : hidden).empty() ? g.topic : ", " + g.topic;
  }
  if (!known) {
    std::string topics = shown + (hidden.empty() ? "" : ", " + hidden) + " or " + kAll;
    throw std::invalid_argument("no help group '" + topic + "' (" + topics + ")");
  }
  if (topic.empty()) {
    out = usage_ + "\n";
    if (!hidden.empty())
      out += "Groups shown: " + shown + ".\nMore: '--help GROUP' for the group " + hidden +
             ", '--help all' for every group.\n";
    out += "Flags: --quiet, --quiet=true|false or --quiet true|false; in a --config file: "
           "quiet = true.\n";
  }
  for (const Group& g : groups_) {
    if (!(topic == kAll || topic == g.topic || (topic.empty() && g.common))) continue;
    out += "\n" + g.title + " (--help " + g.topic + "):\n";
    for (const auto& o : g.options->options()) out += option_text(*o);
  }
  if (topic.empty())
    out += "\nPETSc options (single dash, e.g. -log_view) are passed through to PETSc.\n";
  return out;
}

po::typed_value<bool>* flag(bool* target) {
  return po::value<bool>(target)->default_value(false, "false")->implicit_value(true, "true");
}

po::typed_value<double>* real(double* target) {
  return po::value<double>(target)->default_value(*target, as_typed(*target));
}

std::string as_typed(double x) {
  char text[32];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, x);
    if (std::strtod(text, nullptr) == x) break;
  }
  std::string s = text;  // 1e-06 -> 1e-6
  const auto e = s.find("e-0");
  if (e != std::string::npos) s.erase(e + 2, 1);
  return s;
}

}  // namespace lsgl::cli
