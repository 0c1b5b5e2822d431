/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The container a cgroup path names, as container runtimes name their
 * cgroups (pprof's container_id label, which Parca and Pyroscope filter
 * by). Takes any string (fuzzed: tests/fuzz/fuzz_container_id.c).
 */
#ifndef PK_CONTAINER_ID_H
#define PK_CONTAINER_ID_H

#include <stdbool.h>
#include <stddef.h>

/* A container id: 64 lowercase hex digits. */
#define PK_CONTAINER_ID_LEN	64

/*
 * The id of the container the cgroup PATH names into ID (NUL-terminated):
 * the innermost component that is one of
 *   docker-ID.scope          docker under systemd
 *   /docker/ID               docker's cgroupfs driver
 *   cri-containerd-ID.scope  containerd's CRI plugin (Kubernetes)
 *   crio-ID.scope            cri-o
 *   libpod-ID.scope          podman
 *   .../podUID/ID            Kubernetes' cgroupfs driver, under kubepods
 * (".scope" may be missing, as cgroupfs drivers name them). True when PATH
 * names one; false, ID empty, when not (a conmon's scope, a pod's own
 * cgroup, anything else).
 */
bool pk_container_id(const char *path, char id[PK_CONTAINER_ID_LEN + 1]);

#endif
