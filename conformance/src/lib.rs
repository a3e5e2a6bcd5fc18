//! The conformance runner: loads YAML suites and checks each case.
