#!/bin/sh
# Runs "$@" in a private mount namespace (start it with: unshare --mount --propagation private -- sh THIS ARGV...)
# in which the paths that device isolation masks exist as stand-ins that DO read data: character devices with
# /dev/zero's numbers (c 1 5) at /dev/nvidia0, /dev/nvidiactl, /dev/nvidia-uvm, /dev/kfd, /dev/nvidia-caps/nvidia-cap1
# and /dev/dri/renderD128, and files at /proc/driver/nvidia/gpus/…/information and in KFD's topology in sysfs.
# /dev is a tmpfs copy of the real one (so nothing is created on the machine); nothing outlives the namespace.
set -eu
work=$(mktemp -d)
mkdir "$work/dev"
mount --bind /dev "$work/dev"
mount -t tmpfs -o mode=755 stand-in-dev /dev
cp -a "$work/dev/." /dev/ 2>/dev/null || true
for d in pts shm mqueue; do
    if mountpoint -q "$work/dev/$d"; then mkdir -p "/dev/$d"; mount --bind "$work/dev/$d" "/dev/$d"; fi
done
umount "$work/dev"
mkdir -p /dev/dri /dev/nvidia-caps
for n in nvidia0 nvidiactl nvidia-uvm kfd dri/renderD128 nvidia-caps/nvidia-cap1; do
    mknod "/dev/$n" c 1 5
    chmod 666 "/dev/$n"
done
mount -t tmpfs -o mode=755 stand-in-driver /proc/driver
mkdir -p /proc/driver/nvidia/gpus/0000:01:00.0
echo "Model: NVIDIA H200 (stand-in)" > /proc/driver/nvidia/gpus/0000:01:00.0/information
mount -t tmpfs -o mode=755 stand-in-class /sys/class
mkdir -p /sys/class/kfd/kfd/topology/nodes/1
echo "gfx_target_version 90402" > /sys/class/kfd/kfd/topology/nodes/1/properties
mount -t tmpfs -o mode=755 stand-in-virtual /sys/devices/virtual
mkdir -p /sys/devices/virtual/kfd/kfd/topology/nodes/1
echo "gfx_target_version 90402" > /sys/devices/virtual/kfd/kfd/topology/nodes/1/properties
rm -rf "$work"
exec "$@"
