# The Python package's version is the C++ library's: pyproject.toml reads it from
# include/jitvec/version.hpp (README "Releasing": the version lives in one place), and
# jitvec.__version__ is JITVEC_VERSION_STRING compiled into the extension.
import importlib.metadata
import pathlib
import re

import jitvec


def test_the_installed_package_has_the_library_version():
    assert importlib.metadata.version("jitvec") == jitvec.__version__


def test_the_library_version_is_version_hpp():
    header = pathlib.Path(__file__).resolve().parents[2] / "include" / "jitvec" / "version.hpp"
    numbers = [re.search(rf"#define JITVEC_VERSION_{part} (\d+)", header.read_text()).group(1)
               for part in ("MAJOR", "MINOR", "PATCH")]
    assert jitvec.__version__ == ".".join(numbers)
