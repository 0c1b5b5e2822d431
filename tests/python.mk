# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Fixtures of the Python end-to-end tests (tests/integration/test_python_e2e.c).
# The scripts of tests/fixtures/python/ run from the source tree under
# Debian's /usr/bin/python3.11 and /usr/bin/python3.11d (python3.11-dbg);
# the two programs are built into $(BUILD)/fixtures_python/:
#   py_embed  an embedder linked with libpython3.11.so (python3.11-dev's
#             python-3.11-embed), the interpreter as a shared library
#   python3   not a Python: CPython's function names and Py_Version, no
#             _PyRuntime, frame pointers as the other fixtures have them

PY_FIX_DIR := $(BUILD)/fixtures_python
PY_FIX_SRC := tests/fixtures/python
PY_EMBED_PC := python-3.11-embed
PY_FIXTURES := $(PY_FIX_DIR)/py_embed $(PY_FIX_DIR)/python3

$(PY_FIX_DIR)/py_embed: $(PY_FIX_SRC)/embed.c tests/python.mk
	@mkdir -p $(@D)
	$(call msg,FIXTURE,$@)
	$(Q)$(CC) -O2 -g $$($(PKG_CONFIG) --cflags $(PY_EMBED_PC)) $< -o $@ \
		$$($(PKG_CONFIG) --libs $(PY_EMBED_PC))

$(PY_FIX_DIR)/python3: $(PY_FIX_SRC)/fake_python3.c tests/cpu_budget.h tests/python.mk
	@mkdir -p $(@D)
	$(call msg,FIXTURE,$@)
	$(Q)$(FIXTURE_CC) $(FIXTURE_CFLAGS) -rdynamic $< -o $@

DEB_TEST_PKGS += python3.11-dev gdb

.PHONY: python-fixtures
python-fixtures: $(PY_FIXTURES)
test-programs: $(PY_FIXTURES)
