/* Core-model configurations (model/config.h) as text, as `--config FILE`
 * reads them, then the checks across keys. The text ends at the first NUL
 * byte. */
#include "fuzz.h"

#include "model/config.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    model_config c;

    if (!text)
        return 0;
    if (size)
        memcpy(text, data, size);
    text[size] = '\0';
    model_config_defaults(&c);
    if (model_config_parse_text(&c, text, "fuzz") == 0)
        (void)model_config_check(&c);
    free(text);
    return 0;
}
