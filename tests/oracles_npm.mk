# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Test oracles from the npm registry, at pinned versions, installed under
# $(BUILD)/npm by npm itself (Node.js and npm are on every machine of the
# project). Read by tests/harness/oracles.c through tests/oracles/*:
#   speedscope  its file-format-schema.json, the schema the speedscope
#               writer's output is validated against, and its `perf script`
#               reader, which reads back the perf text writer's output.
#
# When npm cannot install them (no registry), the build goes on with a
# warning: the tests that need them then skip, or fail with CI=true.

NPM ?= npm
NPM_DIR := $(BUILD)/npm
SPEEDSCOPE_VERSION := 1.25.0
NPM_SPEEDSCOPE := $(NPM_DIR)/node_modules/speedscope/package.json

# Remade when the pinned version changes (this file is newer).
$(NPM_SPEEDSCOPE): tests/oracles_npm.mk
	@mkdir -p $(NPM_DIR)
	$(call msg,NPM,speedscope@$(SPEEDSCOPE_VERSION))
	$(Q)if $(NPM) install --prefix $(NPM_DIR) --no-save --no-audit --no-fund \
		--ignore-scripts --loglevel=error speedscope@$(SPEEDSCOPE_VERSION) \
		> $(NPM_DIR)/install.log 2>&1; then touch $@; else \
		echo "warning: npm could not install speedscope@$(SPEEDSCOPE_VERSION)" \
		"(see $(NPM_DIR)/install.log): its tests will skip"; fi

.PHONY: npm-oracles
npm-oracles: $(NPM_SPEEDSCOPE)
test-programs: $(NPM_SPEEDSCOPE)
