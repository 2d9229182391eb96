// Copyright Nereid authors.
// nereid-view: the interactive viewer (and its headless mode for CI). Exit status as for
// `nereid run`: 0 success, 1 bad input or no display, 2 usage, 3 the state diverged
// (headless).
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "app.h"
#ifdef NEREID_HAVE_MPC
#include "nereid/mpc.h"
#endif
#include "nereid/error.h"
#include "options.h"

int main(int argc, char** argv) {
  using nereid::viewer::kUsage;
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && (args[0] == "--help" || args[0] == "-h" || args[0] == "help")) {
    std::cout << kUsage;
    return 0;
  }
#ifdef NEREID_HAVE_MPC
  nereid::EnableMpc();  // scenarios with "controller": {"type": "mpc"}, as in `nereid run`
#endif
  try {
    const nereid::viewer::ViewerOptions options = nereid::viewer::ParseOptions(args);
    nereid::viewer::App app(options);
    return options.headless ? app.RunHeadless() : app.RunInteractive();
  } catch (const nereid::cli::Help&) {
    std::cout << kUsage;
    return 0;
  } catch (const nereid::viewer::Usage& u) {
    std::cerr << "nereid-view: " << u.message << "\n" << kUsage;
    return 2;
  } catch (const std::exception& e) {  // nereid::Error and the rest
    std::cerr << "nereid-view: error: " << e.what() << "\n";
    return 1;
  }
}
