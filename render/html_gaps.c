/*  html_gaps.c: see html_gaps.h. */
#include "html_gaps.h"
#include "html_page.h"

#include <math.h>

int
html_gaps_problems (FILE *f, json_t *s)
{
    int n = 0;
    size_t i;
    json_t *g;
    json_array_foreach (json_object_get (s, "gaps"), i, g) {
        fputs (json_is_true (json_object_get (g, "partial")) ? "<li class=\"fail\"><b>" : "<li><b>",
               f);
        esc (f, str (g, "agent"));
        fputs ("</b> gap, ", f);
        esc (f, str (g, "cause"));
        fprintf (f, ", intervals %.0f-%.0f", num (g, "from_interval"), num (g, "to_interval"));
        if (isfinite (num (g, "seconds")))
            fprintf (f, " (%.1f s)", num (g, "seconds"));
        fputs (": ", f);
        esc (f, str (g, "io"));
        fputs ("</li>\n", f);
        n++;
    }
    return n;
}
