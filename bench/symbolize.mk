# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The symbolizer's throughput driver of bench/symbolize.sh, linked against
# the libraries probe-read links.
$(BUILD)/bench/symbolize: $(BUILD)/obj/bench/symbolize.o $(LIBS)
	@mkdir -p $(@D)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(LDFLAGS) $< $(LIBS) $(LDLIBS) -o $@
