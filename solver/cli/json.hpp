// solver/cli/json.hpp — a minimal streaming JSON writer for the CLI's --json output.
// Keys and nesting are the caller's; this only handles commas, quoting and escaping.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace kalah::cli {

class JsonWriter {
 public:
  JsonWriter& begin_object() { return open('{'); }
  JsonWriter& end_object() { return close('}'); }
  JsonWriter& begin_array() { return open('['); }
  JsonWriter& end_array() { return close(']'); }
  JsonWriter& key(std::string_view k) {
    separate();
    quote(k);
    out_ += ':';
    after_key_ = true;
    return *this;
  }
  JsonWriter& value(std::string_view v) { separate(); quote(v); return *this; }
  JsonWriter& value(const char* v) { return value(std::string_view(v)); }
  JsonWriter& value(const std::string& v) { return value(std::string_view(v)); }
  JsonWriter& value(bool v) { separate(); out_ += v ? "true" : "false"; return *this; }
  JsonWriter& value(int v) { return raw(std::to_string(v)); }
  JsonWriter& value(long v) { return raw(std::to_string(v)); }
  JsonWriter& value(long long v) { return raw(std::to_string(v)); }
  JsonWriter& value(unsigned long v) { return raw(std::to_string(v)); }
  JsonWriter& value(unsigned long long v) { return raw(std::to_string(v)); }
  JsonWriter& value(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return raw(buf);
  }
  JsonWriter& null() { return raw("null"); }
  template <class T>
  JsonWriter& field(std::string_view k, const T& v) { key(k); return value(v); }
  template <class T>
  JsonWriter& array_field(std::string_view k, const std::vector<T>& items) {
    key(k).begin_array();
    for (const auto& x : items) value(x);
    return end_array();
  }
  const std::string& str() const { return out_; }

 private:
  JsonWriter& raw(std::string_view text) { separate(); out_ += text; return *this; }
  JsonWriter& open(char c) {
    separate();
    out_ += c;
    first_.push_back(true);
    return *this;
  }
  JsonWriter& close(char c) {
    out_ += c;
    first_.pop_back();
    return *this;
  }
  void separate() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (!first_.empty()) {
      if (!first_.back()) out_ += ',';
      first_.back() = false;
    }
  }
  void quote(std::string_view s) {
    out_ += '"';
    for (char ch : s) {
      switch (ch) {
        case '"': out_ += "\\\""; break;
        case '\\': out_ += "\\\\"; break;
        case '\n': out_ += "\\n"; break;
        case '\t': out_ += "\\t"; break;
        default:
          if (static_cast<unsigned char>(ch) < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", ch);
            out_ += buf;
          } else {
            out_ += ch;
          }
      }
    }
    out_ += '"';
  }
  std::string out_;
  std::vector<bool> first_;
  bool after_key_ = false;
};

}  // namespace kalah::cli
