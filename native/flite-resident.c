// flite kept running: the WAV that `flite_cmu_us_<voice> -f text.txt -o raw.wav` makes, byte for
// byte, for many messages in one process (a new flite spends most of a short message's CPU loading
// and relocating its libraries: bench/NOTES.md, 8).
//
// Speaks the protocol of the speech workers (src/speech/speech-workers.ts): each line on stdin is
// "<id> flite <voice> <dir>"; it makes $RH_CACHE/<dir>/raw.wav from $RH_CACHE/<dir>/text.txt
// and answers "<id> <status>" on stdout: 0 made, 127 anything else (a voice or step it does not
// have, a line it cannot read, a message it could not make: the shell worker then does the job).
// libflite is opened at run time, so that building this needs only a C compiler and the C
// library's headers, not flite's development package. With stdin at its end at once, it exits 0
// if libflite could be opened: the check that it can run here.
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

// 0 when raw.wav was made from text.txt in the job's directory.
static int speak(const char *cache, const char *step, const char *name, const char *dir) {
  cst_voice *voice = strcmp(step, "flite") == 0 ? voice_named(name) : NULL;
  if (voice == NULL) return 127;
  char text[4200], raw[4200];
  if (snprintf(text, sizeof text, "%s/%s/text.txt", cache, dir) >= (int)sizeof text) return 127;
  if (snprintf(raw, sizeof raw, "%s/%s/raw.wav", cache, dir) >= (int)sizeof raw) return 127;
  remove(raw);
  // The 16 kHz voices draw on rand(): a new flite starts from its first number, and so does each message here.
  srand(1);
  file_to_speech(text, voice, raw);
  // Its return does not tell a failure (an unreadable text is "1 second"); the file does.
  FILE *made = fopen(raw, "rb");
  if (made == NULL) return 127;
  fclose(made);
  return 0;
}

int main(void) {
  const char *cache = getenv("RH_CACHE");
  void *flite = dlopen("libflite.so.1", RTLD_NOW | RTLD_GLOBAL);
  if (flite == NULL) {
    fprintf(stderr, "flite-resident: %s\n", dlerror());
    return 2;
  }
  int (*init)(void) = (int (*)(void))dlsym(flite, "flite_init");
  file_to_speech = (float (*)(const char *, cst_voice *, const char *))dlsym(flite, "flite_file_to_speech");
  if (init == NULL || file_to_speech == NULL) {
    fprintf(stderr, "flite-resident: libflite.so.1 lacks flite_init or flite_file_to_speech\n");
    return 2;
  }
  init();
  char line[4200], id[32], step[16], name[16], dir[4096];
  while (fgets(line, sizeof line, stdin) != NULL) {
    int whole = strchr(line, '\n') != NULL;
    // The rest of a line too long for the buffer is read and dropped: its job is answered 127.
    for (int c = 0; !whole && c != '\n' && c != EOF;) c = getchar();
    if (sscanf(line, "%31s", id) != 1) continue;
    int ok = whole && cache != NULL && sscanf(line, "%31s %15s %15s %4095s", id, step, name, dir) == 4;
    printf("%s %d\n", id, ok ? speak(cache, step, name, dir) : 127);
    fflush(stdout);
  }
  return 0;
}
