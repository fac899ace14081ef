// src/cli/main.cpp: the `jitvec` command's entry point; everything else is in src/cli/app.cpp.
#include "cli/app.hpp"

int main(int argc, char** argv) { return jitvec::cli::run_cli(argc, argv); }
