# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The Java fixtures of the HotSpot tests (tests/integration/test_hotspot_*.c):
# tests/fixtures/java/*.java compiled by Debian 12's OpenJDK 17 (its own
# javac, not whatever `javac` the alternatives name) for release 17, into
# $(BUILD)/fixtures_java/: class files that JDK 17 on the host and JDK 21
# and 25 in the test roots (tests/roots/) all run.

JAVA_FIX_DIR := $(BUILD)/fixtures_java
JAVA_HOME_17 ?= /usr/lib/jvm/java-17-openjdk-amd64
JAVA_FIX_SRCS := $(wildcard tests/fixtures/java/*.java)
JAVA_FIXTURES := $(JAVA_FIX_SRCS:tests/fixtures/java/%.java=$(JAVA_FIX_DIR)/%.class)

$(JAVA_FIX_DIR)/%.class: tests/fixtures/java/%.java tests/java.mk
	@mkdir -p $(@D)
	$(call msg,JAVAC,$@)
	$(Q)$(JAVA_HOME_17)/bin/javac --release 17 -d $(JAVA_FIX_DIR) $<

DEB_TEST_PKGS += openjdk-17-jdk-headless

.PHONY: java-fixtures
java-fixtures: $(JAVA_FIXTURES)
test-programs: $(JAVA_FIXTURES)
