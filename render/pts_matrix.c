#include "pts_matrix.h"

json_t *
pts_cell (json_t *q, json_t *row, json_t *col)
{
    size_t i;
    json_t *c;
    json_array_foreach (json_object_get (json_object_get (q, "fleet"), "cells"), i, c)
        if (json_equal (json_object_get (c, "bs"), row)
            && json_equal (json_object_get (c, "column"), col))
            return c;
    return NULL;
}
