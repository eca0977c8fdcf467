# Install rules and Debian packages (CPack DEB), one package per program:
#
#   iofleet-controller  the controller, its systemd unit, /etc/iofleet/controller.conf;
#                       its postinst creates the system user 'iofleet'
#   iofleet-agent       the agent, its unit, /etc/iofleet/agent.conf
#   iofleet-cli         the 'iofleet' command, its manual page and bash completion
#
# 'make package' builds them into BUILD/packages; docs/deploy.md says how to
# install, configure, upgrade and remove them.  Included at the end of the
# top-level CMakeLists.txt, after the targets it installs.

# The units name /usr/bin/... and the daemons read /etc/iofleet/*.conf: a
# plain 'cmake --install' goes where the packages go unless told otherwise.
if(CMAKE_INSTALL_PREFIX_INITIALIZED_TO_DEFAULT)
  set(CMAKE_INSTALL_PREFIX /usr CACHE PATH "Install prefix" FORCE)
endif()
include(GNUInstallDirs)

# Debian 12 keeps packaged units in /lib/systemd/system (the usrmerge
# moratorium: files move to /usr/lib only with dpkg's help).
set(IOFLEET_SYSTEMD_UNITDIR /lib/systemd/system CACHE PATH
    "Where the packages put the systemd units")
set(IOFLEET_PACKAGE_MAINTAINER "iofleet maintainers <iofleet@localhost>" CACHE STRING
    "Maintainer field of the Debian packages (Name <address>)")

set(_pkg ${CMAKE_CURRENT_LIST_DIR})
# The daemons read these paths whatever the prefix: they are absolute.
set(_etc /etc/iofleet)
set(_doc ${CMAKE_INSTALL_DATAROOTDIR}/doc)

# Manual pages, generated at build time: the daemons' from their --help
# (help2man) with the FILES / SEE ALSO of packaging/man/*.h2m; iofleet(1)
# from the CLI's command table (iofleet help --man, cli/commands.c), every
# command and option in it.  Gzipped as Debian wants them.
find_program(HELP2MAN help2man REQUIRED)
set(_man ${CMAKE_BINARY_DIR}/man)
file(MAKE_DIRECTORY ${_man})
set(_man_pages)
foreach(spec "iofleet-controller|8|stores storage qualification plans and results, drives runs across agents"
             "iofleet-agent|8|runs storage qualification workloads for an iofleet controller")
  string(REPLACE "|" ";" spec "${spec}")
  list(GET spec 0 prog)
  list(GET spec 1 section)
  list(GET spec 2 name)
  add_custom_command(
    OUTPUT ${_man}/${prog}.${section}.gz
    COMMAND ${HELP2MAN} --no-info --section=${section} --name=${name}
            --include=${_pkg}/man/${prog}.h2m --output=${_man}/${prog}.${section}
            $<TARGET_FILE:${prog}>
    COMMAND gzip -9nf ${_man}/${prog}.${section}
    DEPENDS ${prog} ${_pkg}/man/${prog}.h2m
    COMMENT "help2man ${prog}.${section}")
  list(APPEND _man_pages ${_man}/${prog}.${section}.gz)
endforeach()
add_custom_command(
  OUTPUT ${_man}/iofleet.1.gz
  COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:iofleet> "-DARGS=help --man" -DOUT=${_man}/iofleet.1
          -P ${CMAKE_SOURCE_DIR}/scripts/run-to-file.cmake
  COMMAND gzip -9nf ${_man}/iofleet.1
  DEPENDS iofleet ${CMAKE_SOURCE_DIR}/scripts/run-to-file.cmake
  COMMENT "iofleet help --man > iofleet.1")
list(APPEND _man_pages ${_man}/iofleet.1.gz)
add_custom_target(man ALL DEPENDS ${_man_pages})

# Bash completion for iofleet, printed by the built CLI from its command
# table; where bash-completion looks for it (Debian:
# /usr/share/bash-completion/completions/iofleet).
set(_completion ${CMAKE_BINARY_DIR}/completion)
file(MAKE_DIRECTORY ${_completion})
add_custom_command(
  OUTPUT ${_completion}/iofleet
  COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:iofleet> "-DARGS=completion bash"
          -DOUT=${_completion}/iofleet -P ${CMAKE_SOURCE_DIR}/scripts/run-to-file.cmake
  DEPENDS iofleet ${CMAKE_SOURCE_DIR}/scripts/run-to-file.cmake
  COMMENT "iofleet completion bash > completion/iofleet")
add_custom_target(completion ALL DEPENDS ${_completion}/iofleet)

install(FILES ${_man}/iofleet-controller.8.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man8
        COMPONENT controller)
install(FILES ${_man}/iofleet-agent.8.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man8 COMPONENT agent)
install(FILES ${_man}/iofleet.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT cli)
install(FILES ${_completion}/iofleet
        DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/bash-completion/completions COMPONENT cli)

install(TARGETS iofleet-controller RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT controller)
# The snapshots table for the sqlite3 shell (docs/design.md, Compact
# per-interval storage): sqlite3 -cmd '.load /usr/lib/<arch>/iofleet/iofleet_sqlite'
install(TARGETS iofleet_sqlite LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/iofleet
        PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ COMPONENT controller)
install(FILES ${_pkg}/systemd/iofleet-controller.service
        DESTINATION ${IOFLEET_SYSTEMD_UNITDIR} COMPONENT controller)
install(FILES ${_pkg}/etc/controller.conf DESTINATION ${_etc} COMPONENT controller)
install(FILES ${CMAKE_SOURCE_DIR}/README.md ${CMAKE_SOURCE_DIR}/docs/deploy.md
        DESTINATION ${_doc}/iofleet-controller COMPONENT controller)

install(TARGETS iofleet-agent RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT agent)
install(FILES ${_pkg}/systemd/iofleet-agent.service
        DESTINATION ${IOFLEET_SYSTEMD_UNITDIR} COMPONENT agent)
install(FILES ${_pkg}/etc/agent.conf DESTINATION ${_etc} COMPONENT agent)
install(FILES ${CMAKE_SOURCE_DIR}/docs/deploy.md DESTINATION ${_doc}/iofleet-agent COMPONENT agent)

install(TARGETS iofleet RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)
install(FILES ${CMAKE_SOURCE_DIR}/README.md DESTINATION ${_doc}/iofleet-cli COMPONENT cli)
# The README's links: the user guide and the command reference, beside it.
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/guide ${CMAKE_SOURCE_DIR}/docs/reference
        DESTINATION ${_doc}/iofleet-cli/docs COMPONENT cli FILES_MATCHING PATTERN "*.md")

# --- CPack: three .deb files ------------------------------------------------
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME iofleet)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${IOFLEET_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DIRECTORY ${CMAKE_BINARY_DIR}/packages)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES TRUE)
set(CPACK_COMPONENTS_ALL controller agent cli)

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)           # NAME_VERSION-RELEASE_ARCH.deb
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SOURCE iofleet)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)            # Depends: from the binaries' libraries
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)   # scripts 0755, conffiles 0644

set(CPACK_DEBIAN_CONTROLLER_PACKAGE_NAME iofleet-controller)
# Besides what dpkg-shlibdeps finds: adduser (postinst: adduser --system) and
# init-system-helpers (the maintainer scripts' deb-systemd-helper and
# deb-systemd-invoke).
set(CPACK_DEBIAN_CONTROLLER_PACKAGE_DEPENDS "adduser, init-system-helpers")
set(CPACK_DEBIAN_CONTROLLER_PACKAGE_RECOMMENDS "iofleet-cli")
set(CPACK_DEBIAN_CONTROLLER_PACKAGE_SUGGESTS "iofleet-agent")
set(CPACK_DEBIAN_CONTROLLER_DESCRIPTION
"iofleet controller: storage qualification plans, runs and results
iofleet runs fio-style job files on many servers at the same moment and
keeps every latency sample as a mergeable histogram.

The controller stores plans and results in SQLite (/var/lib/iofleet) and
drives runs across the agents that connect to it.  It runs as the system
user 'iofleet' under a hardened systemd unit.  Talk to it with the
'iofleet' command (package iofleet-cli).")

set(CPACK_DEBIAN_AGENT_PACKAGE_NAME iofleet-agent)
set(CPACK_DEBIAN_AGENT_PACKAGE_DEPENDS "init-system-helpers")
# Drive health: smartctl for SATA and SAS (NVMe needs neither: the admin
# ioctl), nvme-cli where the ioctl is refused.
set(CPACK_DEBIAN_AGENT_PACKAGE_RECOMMENDS "smartmontools, nvme-cli")
set(CPACK_DEBIAN_AGENT_PACKAGE_SUGGESTS "iofleet-cli")
set(CPACK_DEBIAN_AGENT_DESCRIPTION
"iofleet agent: runs storage workloads for an iofleet controller
iofleet runs fio-style job files on many servers at the same moment and
keeps every latency sample as a mergeable histogram.

The agent runs on each server under test: it connects out to the
controller, runs the I/O (libaio, io_uring, O_DIRECT) on the targets its
configuration allows, and streams latency histograms back.  It runs as
root: it opens raw block devices.  Configure /etc/iofleet/agent.conf,
then start iofleet-agent.service.")

set(CPACK_DEBIAN_CLI_PACKAGE_NAME iofleet-cli)
set(CPACK_DEBIAN_CLI_DESCRIPTION
"iofleet command line: plans, runs and reports of an iofleet controller
iofleet runs fio-style job files on many servers at the same moment and
keeps every latency sample as a mergeable histogram.

The 'iofleet' command adds plans, starts and watches runs, prints and
compares reports (text, JSON, CSV, fio JSON, HTML) and makes the CURVE
keys of a fleet.")

foreach(c controller agent)
  string(TOUPPER ${c} C)
  set(CPACK_DEBIAN_${C}_PACKAGE_CONTROL_EXTRA
      "${_pkg}/debian/${c}/conffiles;${_pkg}/debian/${c}/postinst;${_pkg}/debian/${c}/prerm;${_pkg}/debian/${c}/postrm")
endforeach()

include(CPack)
