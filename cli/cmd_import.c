/*  import.c: iofleet import: fio's JSON results (json or json+, as fio
    wrote them, notes before the document included) sent to the
    controller, which stores them as runs beside iofleet's own. */
#define _GNU_SOURCE
#include "cli.h"
#include "direction.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <time.h>

#define IMPORT_FILE_MAX (48u << 20)

/* fio writes notes ("note: both iodepth >= 1 and synchronous I/O engine
   ...") and, in client/server mode, "<host> ..." lines before its JSON:
   the document starts at the first line that begins with '{'. */
static json_t *
load_fio_json (const char *path, char *err, size_t errlen)
{
    size_t len;
    char *text = file_read_all (path, IMPORT_FILE_MAX, &len);
    if (!text) {
        snprintf (err, errlen, "%s: %s", path, errno == EFBIG || errno == E2BIG
                  ? "larger than the 48 MiB an import takes" : strerror (errno));
        return NULL;
    }
    char *start = text[0] == '{' ? text : strstr (text, "\n{");
    if (start && start != text)
        start++;
    if (!start) {
        snprintf (err, errlen, "%s: no JSON document (write it with fio --output-format=json "
                  "or json+)", path);
        free (text);
        return NULL;
    }
    json_error_t jerr;
    json_t *doc = json_loadb (start, len - (size_t) (start - text), JSON_DISABLE_EOF_CHECK, &jerr);
    if (!doc)
        snprintf (err, errlen, "%s: not valid JSON (line %d, column %d of the document): %s",
                  path, jerr.line, jerr.column, jerr.text);
    free (text);
    return doc;
}

int
cmd_import (const char *endpoint, int argc, char **argv)
{
    json_t *labels = json_object ();
    const char *plan = NULL, *host = NULL;
    bool json = false;
    int nfiles = 0, failed = 0;
    const char *files[256];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp (a, "--label") == 0 && i + 1 < argc) {
            if (cli_label_arg (labels, "import", argv[++i])) {
                json_decref (labels);
                return 2;
            }
        } else if (strcmp (a, "--plan") == 0 && i + 1 < argc)
            plan = argv[++i];
        else if (strcmp (a, "--host") == 0 && i + 1 < argc)
            host = argv[++i];
        else if (strcmp (a, "--json") == 0)
            json = true;
        else if (a[0] != '-' && nfiles < 256)
            files[nfiles++] = a;
        else {
            fprintf (stderr, "iofleet import: unexpected argument '%s' (see iofleet --help)\n", a);
            json_decref (labels);
            return 2;
        }
    }
    if (nfiles == 0) {
        fprintf (stderr, "iofleet import: which files? e.g. iofleet import fio-fw1.json "
                 "--label drive.firmware=1.2\n");
        json_decref (labels);
        return 2;
    }
    for (int k = 0; k < nfiles; k++) {
        char err[1024];
        json_t *doc = load_fio_json (files[k], err, sizeof err);
        if (!doc) {
            fprintf (stderr, "iofleet import: %s\n", err);
            failed++;
            continue;
        }
        const char *base = strrchr (files[k], '/');
        json_t *req = json_pack ("{s:s, s:o, s:s, s:O}", "cmd", "import", "fio", doc,
                                 "source", base ? base + 1 : files[k], "labels", labels);
        if (plan)
            json_object_set_new (req, "plan", json_string (plan));
        if (host)
            json_object_set_new (req, "host", json_string (host));
        json_t *r = client_call (endpoint, req, 120000, err, sizeof err);
        json_decref (req);
        if (!r) {
            fprintf (stderr, "iofleet import: %s\n", err);
            failed++;
            continue;
        }
        if (json) {
            char *text = json_dumps (r, JSON_COMPACT);
            if (text)
                puts (text);
            free (text);
        } else
            printf ("%s: run %lld (%lld %s, %lld %s; latency: %s)\n", files[k],
                    (long long) json_integer_value (json_object_get (r, "run")),
                    (long long) json_integer_value (json_object_get (r, "entries")),
                    plural (json_integer_value (json_object_get (r, "entries")), "entry", "entries"),
                    (long long) json_integer_value (json_object_get (r, "steps")),
                    plural (json_integer_value (json_object_get (r, "steps")), "step", "steps"),
                    json_string_value (json_object_get (r, "latency")));
        json_decref (r);
    }
    json_decref (labels);
    return failed ? 1 : 0;
}
