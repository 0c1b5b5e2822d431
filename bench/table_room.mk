# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The unwind store's driver of bench/table-room.sh, linked against the
# libraries probe-load links.
$(BUILD)/bench/table_room: $(BUILD)/obj/bench/table_room.o $(LIBS)
	@mkdir -p $(@D)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(LDFLAGS) $< $(LIBS) $(LDLIBS) -o $@
