/*  html_figures.h: the figures the HTML report (iofleet report --format
    html) shows that report_json does not carry, computed in the
    controller so that the CLI only renders them.

    html_figures_add puts on each step of a report (report_json's):
    "fleet_iops": the step's fleet IOPS over every direction (null when no
    direction has a figure), and a "heatmap" (hosts x targets, each
    target's p99 against a median):
      {"direction": the first direction with fleet ops (read, write,
                    trim), else "read",
       "median_p99": the median p99 of the step's targets (null: none),
       "cells": [{"agent": index in the step's "agents", "target": index
                  in that agent's "targets", "group": its --by group or
                  absent, "median_p99": the median it is judged against
                  (its group's, else the step's), "deviation_pct":
                  100 x (p99 - median) / median}...]}
    A cell is a target of that direction with ops and a p99 > 0; the
    median is of such targets (the mean of the middle two for an even
    count).

    The report command with html_figures adds as well the run's
    "inventories" (inventories_of_run, controller.h): the inventory each
    agent ran with, not the one it has now.
*/
#ifndef IOF_HTML_FIGURES_H
#define IOF_HTML_FIGURES_H

#include <jansson.h>

/* Adds "fleet_iops" and "heatmap" (see above) to each step of rep.
   Can't fail: out of memory, a step gets fewer of them. */
void html_figures_add (json_t *rep);

#endif
