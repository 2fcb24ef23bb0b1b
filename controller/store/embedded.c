/* Lookups in the files compiled into tbcontrollerd (embedded.h). */
#include <string.h>

#include "embedded.h"

const struct embedded_file *
embedded_find(const struct embedded_file *files, int n, const char *path)
{
	for (int i = 0; i < n; i++)
		if (strcmp(files[i].path, path) == 0)
			return &files[i];
	return NULL;
}
