#!/usr/bin/env bash
# [iofleet] purge=format on drives that take a format, in a virtual machine
# (root only): QEMU emulates an NVMe drive and a SCSI disk (virtio-
# scsi), Debian's cloud kernel (scripts/vm-kernel) boots with an initramfs
# holding the agent as built here, its libraries, and tests/vm/init.c as
# PID 1, which runs `iofleet-agent run PLAN` once per drive:
#  - NVMe: the drive's 64 MiB are filled with 0xa5 from outside (the image
#    file) before the boot; the agent's purge step sends Format NVM (user
#    data erase) and then reads the drive; the agent exits 0, its purge
#    step without error; after the VM is off, every byte of the image is 0:
#    QEMU's drive erased what the format told it to;
#  - SCSI: FORMAT UNIT goes to QEMU's scsi-hd through SG_IO; what the
#    device answered is checked as the agent reports it (QEMU's disk takes
#    FORMAT UNIT and erases nothing: the image is checked unchanged, so the
#    test cannot mistake that for an erase);
#  - without --allow-purge the NVMe format is refused before any command
#    reaches the drive, naming the rule (the run before the one above);
#  - the NVMe drive's health is read through the admin ioctl before and
#    after each step (QEMU answers the SMART log page), its temperature
#    from the driver's hwmon sensor.
. "$(dirname "$0")/../e2e/lib.sh"
[ "$(id -u)" = 0 ] || { echo "skip: not root"; exit 77; }
QEMU=$(command -v qemu-system-x86_64 || true)
[ -n "$QEMU" ] || { echo "skip: no qemu-system-x86_64 (scripts/install-deps installs it)"; exit 77; }
command -v cpio >/dev/null || { echo "skip: no cpio"; exit 77; }
KDIR=${IOFLEET_VM_CACHE:-/var/cache/iofleet-vm}
VMLINUZ=$(ls "$KDIR"/boot/vmlinuz-* 2>/dev/null | head -1)
[ -n "$VMLINUZ" ] || { echo "skip: no VM kernel in $KDIR (scripts/vm-kernel fetches it)"; exit 77; }
MODS=$(ls -d "$KDIR"/lib/modules/* | head -1)
fleet_setup

# The initramfs: init, the agent and every library it loads, the modules
# virtio-scsi needs (in dependency order), the plans.
R=$T/root
mkdir -p "$R"/{dev,proc,sys,tmp,modules}
${CC:-cc} -static -O2 -o "$R/init" "$(dirname "$0")/init.c" || fail "cc -static init.c"
cp "$BIN/iofleet-agent" "$R/iofleet-agent"
for lib in $(ldd "$BIN/iofleet-agent" | awk '/=> \// {print $3} /^\t\/lib/ {print $1}'); do
  mkdir -p "$R$(dirname "$lib")"
  cp -L "$lib" "$R$lib"
done
: >"$R/modules/order"
for m in drivers/virtio/virtio_ring drivers/virtio/virtio drivers/virtio/virtio_pci_modern_dev \
         drivers/virtio/virtio_pci_legacy_dev drivers/virtio/virtio_pci drivers/scsi/scsi_common \
         drivers/scsi/scsi_mod drivers/scsi/sd_mod drivers/scsi/virtio_scsi; do
  f=$MODS/kernel/$m.ko
  [ -f "$f" ] || { echo "skip: the VM kernel has no $m.ko"; exit 77; }
  cp "$f" "$R/modules/"
  echo "/modules/$(basename "$f")" >>"$R/modules/order"
done
# smartctl, for the SCSI disk's health (the NVMe drive's is the admin
# ioctl's): where execvp looks without a PATH.
if command -v smartctl >/dev/null; then
  mkdir -p "$R/usr/bin"
  cp "$(command -v smartctl)" "$R/usr/bin/smartctl"
  for lib in $(ldd "$(command -v smartctl)" | awk '/=> \// {print $3} /^\t\/lib/ {print $1}'); do
    mkdir -p "$R$(dirname "$lib")"
    cp -L "$lib" "$R$lib"
  done
fi
printf '/dev/nvme0n1\n/dev/sda\n' >"$R/wait"
plan () {  # plan FILE DEVICE
  cat >"$1" <<EOF2
[iofleet]
purge=format

[reads]
ioengine=libaio
direct=1
filename=$2
rw=read
bs=1m
EOF2
}
plan "$R/nvme.fio" /dev/nvme0n1
plan "$R/scsi.fio" /dev/sda
cat >"$R/cmds" <<EOF2
/iofleet-agent run /nvme.fio
/iofleet-agent run /nvme.fio --allow-purge /dev/nvme0n1
/iofleet-agent run /scsi.fio --allow-purge /dev/sda
EOF2
(cd "$R" && find . | cpio -o -H newc --quiet) >"$T/initrd" || fail "cpio"

# The drives' images, filled from outside.
python3 - "$T/nvme.img" "$T/scsi.img" <<'PY'
import sys
for p in sys.argv[1:]:
    open(p, "wb").write(b"\xa5" * (64 << 20))
PY
sum_scsi=$(sha256sum <"$T/scsi.img")
# TCG, not KVM: the guest boots in a few seconds either way, and KVM
# nested in this kind of machine hangs the guest's early boot.
timeout 300 "$QEMU" -accel tcg -m 1024 -display none -no-reboot \
    -serial "file:$T/console.log" -kernel "$VMLINUZ" -initrd "$T/initrd" \
    -append "console=ttyS0 panic=-1 loglevel=3" \
    -drive "file=$T/nvme.img,if=none,id=n0,format=raw" -device nvme,serial=iofleet0001,drive=n0 \
    -device virtio-scsi-pci,id=scsi0 \
    -drive "file=$T/scsi.img,if=none,id=s0,format=raw" -device scsi-hd,drive=s0,bus=scsi0.0 \
    >"$T/qemu.log" 2>&1 || fail "qemu exited $?: $(tail -5 "$T/qemu.log")"
tr -d '\r' <"$T/console.log" >"$T/vm.log"    # a serial console's lines end in CR LF
mv "$T/vm.log" "$T/console.log"
grep -q "^IOFLEET-VM-RC 3 " "$T/console.log" || fail "the VM did not run its three commands"

# 1. No --allow-purge: refused, the drive untouched (checked at the end:
#    the second command formats it).
grep -q "^IOFLEET-VM-RC 1 0" "$T/console.log" && fail "purge=format without --allow-purge exited 0"
grep -q "purge of '/dev/nvme0n1' refused: no --allow-purge glob matches it" "$T/console.log" \
  || fail "no refusal naming --allow-purge"
# 2. NVMe: formatted, then read; the image is all zeros.
grep -q "^IOFLEET-VM-RC 2 0$" "$T/console.log" || fail "purge=format on NVMe: $(grep -A3 'IOFLEET-VM-RUN 2' "$T/console.log" | tail -3)"
grep -q "^purge: (groupid=0, jobs=1): err= 0$" "$T/console.log" || fail "no purge step without error in the NVMe run"
cmp -s -n $((64 << 20)) "$T/nvme.img" /dev/zero || fail "the NVMe image still holds non-zero bytes after the format"
ok "NVMe: refused without --allow-purge; with it, Format NVM erased all 64 MiB (every byte of the image 0, read from outside), then the plan's reads ran"
# Drive health (agent/health_probe.h) on a kernel's NVMe driver: the SMART
# log through the admin ioctl before and after each step, and the
# temperature of the driver's hwmon sensor (a line on stdout before the
# results, in text).
hl=$(sed -n '/^IOFLEET-VM-RUN 2 /,/^IOFLEET-VM-RC 2 /p' "$T/console.log" | grep -o 'health /dev/nvme0n1: .*' || true)
grep -qE '^health /dev/nvme0n1: nvme-ioctl, -?[0-9]+ C at the end( \(sensor -?[0-9.]+ C\))?, 0 new media error\(s\)' <<<"$hl" \
  || fail "NVMe health: $(sed -n '/^IOFLEET-VM-RUN 2 /,/^IOFLEET-VM-RC 2 /p' "$T/console.log" | grep -i health | head -5)"
grep -q 'sensor' <<<"$hl" || echo "note: the VM kernel's NVMe driver registered no hwmon sensor"
ok "NVMe health through the admin ioctl: $(head -1 <<<"$hl"); $(sed -n '/^IOFLEET-VM-RUN 2 /,/^IOFLEET-VM-RC 2 /p' "$T/console.log" | grep -o 'health of .* read in [0-9.]* ms' | head -1)"
sh=$(sed -n '/^IOFLEET-VM-RUN 3 /,/^IOFLEET-VM-RC 3 /p' "$T/console.log" | grep -o 'health /dev/sda.*' || true)
echo "note: SCSI disk health (smartctl on QEMU's scsi-hd): ${sh:-none reported}"
# 3. SCSI: FORMAT UNIT as the device answered it.
if grep -q "^IOFLEET-VM-RC 3 0$" "$T/console.log"; then
  [ "$(sha256sum <"$T/scsi.img")" = "$sum_scsi" ] || fail "QEMU's FORMAT UNIT changed the image (not expected of it)"
  ok "SCSI: FORMAT UNIT through SG_IO answered GOOD (QEMU's scsi-hd erases nothing: the image is unchanged)"
else
  grep -q "/dev/sda: the device refused FORMAT UNIT: SCSI status" "$T/console.log" \
    || fail "SCSI: neither a format nor the device's refusal: $(grep -A3 'IOFLEET-VM-RUN 3' "$T/console.log" | tail -3)"
  ok "SCSI: the device refused FORMAT UNIT, named with its sense"
fi
