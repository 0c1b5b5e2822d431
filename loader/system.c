// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <bpf/btf.h>
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/util/sysfile.h"
#include "loader/system.h"

/* Older kernels lack BPF perf_event links, which is what lets sampling go
 * on after probe-load exits. */
#define MIN_MAJOR	5
#define MIN_MINOR	15
/* The DWARF walk finds a PC's VMA in the mm's maple tree (bpf/vma.bpf.h). */
#define DWARF_MIN_MAJOR	6
#define DWARF_MIN_MINOR	1

int pk_check_kernel_release(const char *release, bool dwarf, char err[PK_ERR_LEN])
{
	unsigned int major, minor;

	if (sscanf(release, "%u.%u", &major, &minor) != 2)
		return pk_err(err, -EOPNOTSUPP, "cannot tell the kernel version from '%s'", release);
	if (major < MIN_MAJOR || (major == MIN_MAJOR && minor < MIN_MINOR))
		return pk_err(err, -EOPNOTSUPP,
			      "Linux %u.%u is too old: probekit needs %d.%d or newer (BPF perf_event links)",
			      major, minor, MIN_MAJOR, MIN_MINOR);
	if (dwarf && (major < DWARF_MIN_MAJOR ||
		      (major == DWARF_MIN_MAJOR && minor < DWARF_MIN_MINOR)))
		return pk_err(err, -EOPNOTSUPP,
			      "Linux %u.%u is too old for --unwind dwarf (the default): it needs %d.%d or newer (the maple tree of VMAs); --unwind fp needs %d.%d",
			      major, minor, DWARF_MIN_MAJOR, DWARF_MIN_MINOR, MIN_MAJOR, MIN_MINOR);
	return 0;
}

int pk_check_btf(const char *path, char err[PK_ERR_LEN])
{
	if (access(path, R_OK) != 0)
		return pk_err(err, -ENOENT,
			      "no kernel BTF (%s: %s): probekit needs a kernel built with CONFIG_DEBUG_INFO_BTF",
			      path, strerror(errno));
	return 0;
}

bool pk_kernel_has_struct(const char *btf_path, const char *name)
{
	struct btf *btf = btf_path ? btf__parse_raw(btf_path) : btf__load_vmlinux_btf();
	bool found;

	if (!btf)
		return false;
	found = btf__find_by_name_kind(btf, name, BTF_KIND_STRUCT) > 0;
	btf__free(btf);
	return found;
}

#define CAP_BIT(c)	(1ULL << (c))

int pk_check_caps(__u64 eff, char err[PK_ERR_LEN])
{
	__u64 need = CAP_BIT(CAP_BPF) | CAP_BIT(CAP_PERFMON);

	if ((eff & need) == need || (eff & CAP_BIT(CAP_SYS_ADMIN)))
		return 0;
	return pk_err(err, -EPERM,
		      "needs root: CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN) are not in effect");
}

__u64 pk_effective_caps(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2] = {};

	if (syscall(SYS_capget, &hdr, data) != 0)
		return 0;
	return (__u64)data[1].effective << 32 | data[0].effective;
}

int pk_parse_cpulist(const char *list, bool *mask, int n)
{
	const char *p = list;
	int count = 0;

	memset(mask, 0, n * sizeof(*mask));
	while (*p && *p != '\n') {
		char *end;
		long lo, hi;

		lo = hi = strtol(p, &end, 10);
		if (end == p || lo < 0)
			return -EINVAL;
		if (*end == '-') {
			p = end + 1;
			hi = strtol(p, &end, 10);
			if (end == p || hi < lo)
				return -EINVAL;
		}
		if (hi >= n)
			return -EINVAL;
		for (long c = lo; c <= hi; c++)
			count += !mask[c], mask[c] = true;
		p = end;
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return -EINVAL;
	}
	return count;
}

int pk_online_cpus(bool *mask, int n, char *list, size_t len)
{
	int ret = pk_read_line("/sys/devices/system/cpu/online", list, len);

	return ret ? ret : pk_parse_cpulist(list, mask, n);
}

int pk_read_uint(const char *path, unsigned int *out)
{
	FILE *f = fopen(path, "re");
	int ret = 0;

	if (!f)
		return -errno;
	if (fscanf(f, "%u", out) != 1)
		ret = -EIO;
	fclose(f);
	return ret;
}

/* Tgid of PID (which may be a thread id: /proc/TID/status exists though
 * TID is not listed) and whether its process has exited: its leader is a
 * zombie (Z) or dead (X) with no other thread left -- a leader that called
 * pthread_exit() is a zombie too while its other threads run. */
static int read_status(pid_t pid, pid_t *tgid, bool *exited)
{
	char path[64], line[256], state = 0;
	int found = 0, threads = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -ESRCH;
	while (found < 3 && fgets(line, sizeof(line), f)) {
		found += sscanf(line, "State: %c", &state) == 1;
		found += sscanf(line, "Tgid: %d", tgid) == 1;
		found += sscanf(line, "Threads: %d", &threads) == 1;
	}
	fclose(f);
	*exited = (state == 'Z' || state == 'X') && threads <= 1;
	return found == 3 ? 0 : -ESRCH;
}

int pk_resolve_tgid(pid_t pid, pid_t *tgid, char err[PK_ERR_LEN])
{
	bool exited;

	if (read_status(pid, tgid, &exited))
		return pk_err(err, -ESRCH, "-p %d: no such process", (int)pid);
	if (exited)
		return pk_err(err, -ESRCH, "-p %d: the process has exited (zombie)", (int)pid);
	return 0;
}

bool pk_process_alive(pid_t tgid)
{
	bool exited;
	pid_t t;

	return read_status(tgid, &t, &exited) == 0 && !exited;
}
