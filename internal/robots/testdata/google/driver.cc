// driver asks Google's robots.txt matcher (github.com/google/robotstxt,
// robots.h and robots.cc, built beside it by regen.sh) about one
// robots.txt: it reads the file named by its argument, then lines
// "AGENT<TAB>URL" on its standard input, and answers each with a line
// "allow" or "disallow": RobotsMatcher::OneAgentAllowedByRobots, the
// verdict of the matcher Googlebot runs, for that agent and URL.
//
// The file is handed over byte for byte, the URL as it is written: the
// matcher normalises neither (robots.cc escapes the patterns only).
// This file is sitemapd's; no code of Google's is kept in this tree.

#include <fstream>
#include <iostream>
#include <iterator>
#include <string>

#include "robots.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: driver ROBOTS.TXT < AGENT<TAB>URL lines\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::cerr << "driver: cannot read " << argv[1] << "\n";
    return 1;
  }
  const std::string body((std::istreambuf_iterator<char>(in)),
                         std::istreambuf_iterator<char>());
  std::string line;
  while (std::getline(std::cin, line)) {
    const size_t tab = line.find('\t');
    if (tab == std::string::npos) {
      std::cerr << "driver: no tab in " << line << "\n";
      return 1;
    }
    googlebot::RobotsMatcher matcher;
    const bool allowed = matcher.OneAgentAllowedByRobots(
        body, line.substr(0, tab), line.substr(tab + 1));
    std::cout << (allowed ? "allow" : "disallow") << "\n";
  }
  return std::cout.good() ? 0 : 1;
}
