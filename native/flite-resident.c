// flite kept running: what `flite_cmu_us_<voice> -f text.txt -o raw.wav` does, for many messages
// in one process. Starting flite is most of a short message's cost (its libraries are loaded and
// relocated each time): 18 ms of CPU against 7 ms here for a typical alert.
//
// Speaks the protocol of the speech workers (src/pbx/speech-workers.ts): each line on stdin is
// "<id> flite <voice> <dir>"; it makes $RH_CACHE/<dir>/raw.wav from $RH_CACHE/<dir>/text.txt
// and answers "<id> <status>" on stdout: 0 made, 127 a voice or step it does not have (the
// caller then uses the shell worker). libflite is opened at run time, so that building this
// needs only a C compiler and the C library's headers, not flite's development package.
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cst_voice cst_voice;
typedef cst_voice *(*register_voice)(const char *voxdir);

static float (*file_to_speech)(const char *filename, cst_voice *voice, const char *outtype);

#define MAX_VOICES 8
static struct {
  char name[16];
  cst_voice *voice;
} voices[MAX_VOICES];
static int voice_count;

static int plain_name(const char *s) {
  if (*s == '\0') return 0;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9'))) return 0;
  return 1;
}

// The voice's library is opened the first time it is asked for, then kept.
static cst_voice *voice_named(const char *name) {
  for (int i = 0; i < voice_count; i++)
    if (strcmp(voices[i].name, name) == 0) return voices[i].voice;
  if (voice_count == MAX_VOICES || !plain_name(name)) return NULL;
  char library[64], symbol[64];
  snprintf(library, sizeof library, "libflite_cmu_us_%s.so.1", name);
  snprintf(symbol, sizeof symbol, "register_cmu_us_%s", name);
  void *handle = dlopen(library, RTLD_NOW | RTLD_GLOBAL);
  if (handle == NULL) return NULL;
  register_voice reg = (register_voice)dlsym(handle, symbol);
  cst_voice *voice = reg == NULL ? NULL : reg(NULL);
  if (voice == NULL) return NULL;
  snprintf(voices[voice_count].name, sizeof voices[voice_count].name, "%s", name);
  voices[voice_count++].voice = voice;
  return voice;
}

int main(void) {
  const char *cache = getenv("RH_CACHE");
  void *flite = dlopen("libflite.so.1", RTLD_NOW | RTLD_GLOBAL);
  if (cache == NULL || flite == NULL) {
    fprintf(stderr, "flite-resident: %s\n", cache == NULL ? "RH_CACHE is not set" : dlerror());
    return 2;
  }
  int (*init)(void) = (int (*)(void))dlsym(flite, "flite_init");
  file_to_speech = (float (*)(const char *, cst_voice *, const char *))dlsym(flite, "flite_file_to_speech");
  if (init == NULL || file_to_speech == NULL) {
    fprintf(stderr, "flite-resident: libflite.so.1 lacks flite_init or flite_file_to_speech\n");
    return 2;
  }
  init();
  char line[4400], id[32], step[16], name[16], dir[4096], text[4400 + 4096], raw[4400 + 4096];
  while (fgets(line, sizeof line, stdin) != NULL) {
    if (sscanf(line, "%31s %15s %15s %4095s", id, step, name, dir) != 4) continue;
    cst_voice *voice = strcmp(step, "flite") == 0 ? voice_named(name) : NULL;
    int status = 127;
    if (voice != NULL) {
      snprintf(text, sizeof text, "%s/%s/text.txt", cache, dir);
      snprintf(raw, sizeof raw, "%s/%s/raw.wav", cache, dir);
      remove(raw);
      file_to_speech(text, voice, raw);
      // Its return does not tell a failure (an unreadable text is "1 second"); the file does.
      FILE *made = fopen(raw, "rb");
      status = made == NULL ? 1 : 0;
      if (made != NULL) fclose(made);
    }
    printf("%s %d\n", id, status);
    fflush(stdout);
  }
  return 0;
}
