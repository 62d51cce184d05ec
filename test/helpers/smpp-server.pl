#!/usr/bin/perl
# An SMSC for ringhook's SMPP tests, built on Net::SMPP (Debian libnet-smpp-perl): an SMPP
# implementation independent of the npm `smpp` package ringhook uses. It binds transceivers,
# answers submit_sm, reassembles concatenated messages itself (UDH IEI 0x00/0x08, GSM 7-bit or
# UCS-2), can answer ESME_RTHROTTLED to the first N submits, and sends delivery receipts.
#
# Every event is one JSON object a line on stdout (see test/helpers/smpp-server.ts).
#
# Options:
#   --port N            listen on 127.0.0.1:N (0: any free port; the port is reported)
#   --system-id ID      the system_id to accept (default ringhook)
#   --password PW       the password to accept (default secret)
#   --throttle N        answer ESME_RTHROTTLED (0x58) to the first N submit_sm of each connection
#   --receipt-stat S    stat in delivery receipts (DELIVRD, UNDELIV, ...; default DELIVRD)
#   --receipt-delay S   seconds before a receipt is sent (default 0.2)
#   --no-receipts       never send delivery receipts
#   --reject-status S   answer every submit_sm with this command_status (e.g. 0x45 ESME_RSUBMITFAIL)
#   --drop-on-submit    read a submit_sm, report it, then close the connection without answering
#                       (the listener stays up: a re-sent submit would be seen)
#   --submit-delay S    seconds to wait before answering a submit_sm (a slow gateway)
use strict;
use warnings;
use utf8;
use Net::SMPP;
use JSON::PP;
use Encode qw(decode);
use Getopt::Long;
use POSIX qw(strftime :sys_wait_h);

my %opt = (port => 0, 'system-id' => 'ringhook', password => 'secret', throttle => 0,
           'receipt-stat' => 'DELIVRD', 'receipt-delay' => 0.2, 'no-receipts' => 0,
           'reject-status' => '', 'drop-on-submit' => 0, 'submit-delay' => 0);
GetOptions(\%opt, 'port=i', 'system-id=s', 'password=s', 'throttle=i', 'receipt-stat=s',
           'receipt-delay=f', 'no-receipts', 'reject-status=s', 'drop-on-submit', 'submit-delay=f')
  or die "bad options\n";
my $reject = $opt{'reject-status'} eq '' ? undef : ($opt{'reject-status'} =~ /^0x/i ? hex($opt{'reject-status'}) : $opt{'reject-status'} + 0);

$| = 1;
my $json = JSON::PP->new->canonical->utf8;
sub emit { my ($event, %f) = @_; print $json->encode({ event => $event, pid => $$, %f }), "\n"; }

# GSM 03.38 default alphabet and its extension table (3GPP TS 23.038).
my @GSM = split //, "\@£\$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\x{1b}ÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?"
  . "¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà";
my %GSM_EXT = (0x0A => "\f", 0x14 => '^', 0x28 => '{', 0x29 => '}', 0x2F => '\\', 0x3C => '[',
               0x3D => '~', 0x3E => ']', 0x40 => '|', 0x65 => '€');

sub decode_gsm {
  my @b = unpack 'C*', shift;
  my $s = '';
  for (my $i = 0; $i < @b; $i++) {
    my $c = $b[$i] & 0x7f;
    if ($c == 0x1b) { my $n = $b[++$i]; $s .= defined $n ? ($GSM_EXT{$n & 0x7f} // ' ') : ''; }
    else { $s .= $GSM[$c]; }
  }
  return $s;
}

sub decode_text {
  my ($bytes, $dc) = @_;
  return decode('UTF-16BE', $bytes) if $dc == 8;
  return decode('latin1', $bytes) if $dc == 1 || $dc == 3;
  return decode_gsm($bytes);
}

my $listener = Net::SMPP->new_listen('127.0.0.1', port => $opt{port}, smpp_version => 0x34)
  or die "cannot listen on 127.0.0.1:$opt{port}: $!\n";
emit('listening', port => $listener->sockport);

my %kids;
$SIG{CHLD} = sub { while ((my $k = waitpid(-1, WNOHANG)) > 0) { delete $kids{$k}; } };
$SIG{TERM} = $SIG{INT} = sub { kill 'TERM', keys %kids; exit 0; };

while (1) {
  my $conn = $listener->accept;
  next unless $conn;    # interrupted by SIGCHLD
  my $pid = fork;
  die "fork: $!" unless defined $pid;
  if ($pid) { $kids{$pid} = 1; close $conn; next; }
  $SIG{TERM} = $SIG{INT} = sub { exit 0; };
  $SIG{PIPE} = 'IGNORE';    # a late answer to a client that gave up must not kill the report
  close $listener;
  serve($conn);
  exit 0;
}

sub serve {
  my ($s) = @_;
  my ($bound, $submits, $next_id) = (0, 0, 0);
  my %parts;   # concatenation reference => { total, data_coding, got => { seq => bytes } }
  emit('connect', peer => $s->peerhost . ':' . $s->peerport);
  while (1) {
    my $pdu = $s->read_pdu;
    if (!$pdu) { emit('disconnect'); return; }
    my $cmd = $pdu->{cmd};
    if ($cmd == 0x00000009 || $cmd == 0x00000002 || $cmd == 0x00000001) {    # bind_*
      my $ok = $pdu->{system_id} eq $opt{'system-id'} && $pdu->{password} eq $opt{password};
      my $status = $ok ? 0 : ($pdu->{system_id} eq $opt{'system-id'} ? 0x0E : 0x0F);
      emit('bind', cmd => $cmd, ok => $ok ? JSON::PP::true : JSON::PP::false, system_id => $pdu->{system_id},
           system_type => $pdu->{system_type}, interface_version => $pdu->{interface_version}, status => $status);
      my $resp = $cmd == 0x9 ? 'bind_transceiver_resp' : $cmd == 0x2 ? 'bind_transmitter_resp' : 'bind_receiver_resp';
      $s->$resp(seq => $pdu->{seq}, status => $status, system_id => 'perl-smsc');
      $bound = $ok;
    } elsif ($cmd == 0x00000015) {
      emit('enquire_link');
      $s->enquire_link_resp(seq => $pdu->{seq});
    } elsif ($cmd == 0x00000006) {
      emit('unbind');
      $s->unbind_resp(seq => $pdu->{seq});
      close $s;
      emit('disconnect');
      return;
    } elsif ($cmd == 0x80000005) {
      emit('deliver_sm_resp', status => $pdu->{status});
    } elsif ($cmd == 0x00000004) {
      handle_submit($s, $pdu, $bound, ++$submits, \$next_id, \%parts);
    } elsif ($cmd & 0x80000000) {
      emit('response', cmd => $cmd, status => $pdu->{status});
    } else {
      emit('unknown', cmd => $cmd);
      $s->generic_nack(seq => $pdu->{seq}, status => 0x03);
    }
  }
}

sub handle_submit {
  my ($s, $pdu, $bound, $n, $next_id, $parts) = @_;
  my $sm = $pdu->{short_message} // '';
  my $payload = $pdu->{message_payload};
  my %f = (seq => $pdu->{seq}, source_addr => $pdu->{source_addr}, source_addr_ton => $pdu->{source_addr_ton},
           source_addr_npi => $pdu->{source_addr_npi}, destination_addr => $pdu->{destination_addr},
           dest_addr_ton => $pdu->{dest_addr_ton}, dest_addr_npi => $pdu->{dest_addr_npi},
           esm_class => $pdu->{esm_class}, data_coding => $pdu->{data_coding},
           registered_delivery => $pdu->{registered_delivery}, short_message_hex => unpack('H*', $sm),
           (defined $payload ? (message_payload_hex => unpack('H*', $payload)) : ()));
  if (!$bound) {
    emit('submit_sm', %f, status => 0x04);
    $s->submit_sm_resp(seq => $pdu->{seq}, status => 0x04, message_id => '');
    return;
  }
  if ($n <= $opt{throttle}) {
    emit('submit_sm', %f, status => 0x58, throttled => JSON::PP::true);
    $s->submit_sm_resp(seq => $pdu->{seq}, status => 0x58, message_id => '');
    return;
  }
  if (defined $reject) {
    emit('submit_sm', %f, status => $reject, rejected => JSON::PP::true);
    $s->submit_sm_resp(seq => $pdu->{seq}, status => $reject, message_id => '');
    return;
  }
  my $id = sprintf('%X%04X', $$, ++$$next_id);
  if ($opt{'drop-on-submit'}) {
    # The SMSC read the message (it may have stored it) and the connection dies before the answer.
    emit('submit_sm', %f, status => 0, message_id => $id, dropped => JSON::PP::true);
    emit('message', text => decode_text($sm, $pdu->{data_coding} & 0x0F ? $pdu->{data_coding} : 0), parts => 1,
         destination_addr => $pdu->{destination_addr}, dropped => JSON::PP::true);
    close $s;
    emit('disconnect');
    exit 0;
  }
  if ($opt{'submit-delay'} > 0) {
    emit('submit_sm_delayed', seq => $pdu->{seq}, delay => $opt{'submit-delay'});
    select(undef, undef, undef, $opt{'submit-delay'});
  }
  emit('submit_sm', %f, status => 0, message_id => $id);

  # Reassemble and report the whole message.
  my $dc = $pdu->{data_coding} & 0x0F ? $pdu->{data_coding} : 0;
  my $whole;
  my $count = 1;
  if (defined $payload) {
    $whole = decode_text($payload, $dc);
  } elsif ($pdu->{esm_class} & 0x40) {
    my $udhl = ord(substr($sm, 0, 1));
    my $udh = substr($sm, 1, $udhl);
    my $body = substr($sm, 1 + $udhl);
    my ($ref, $total, $seq);
    my $i = 0;
    while ($i + 2 <= length $udh) {
      my ($iei, $len) = unpack 'CC', substr($udh, $i, 2);
      my $v = substr($udh, $i + 2, $len);
      if ($iei == 0x00 && $len == 3) { ($ref, $total, $seq) = unpack 'CCC', $v; }
      elsif ($iei == 0x08 && $len == 4) { ($ref, $total, $seq) = unpack 'nCC', $v; }
      $i += 2 + $len;
    }
    if (defined $ref) {
      my $key = "$pdu->{destination_addr}/$ref";
      $parts->{$key} //= { total => $total, got => {} };
      $parts->{$key}{got}{$seq} = $body;
      if (keys %{ $parts->{$key}{got} } == $total) {
        my $bytes = join '', map { $parts->{$key}{got}{$_} } sort { $a <=> $b } keys %{ $parts->{$key}{got} };
        $whole = decode_text($bytes, $dc);
        $count = $total;
        delete $parts->{$key};
      }
    }
  } else {
    $whole = decode_text($sm, $dc);
  }
  emit('message', text => $whole, parts => $count, data_coding => $dc, source_addr => $pdu->{source_addr},
       destination_addr => $pdu->{destination_addr}, mode => defined $payload ? 'message_payload' : 'short_message')
    if defined $whole;
  # Answered once reported: a sender that saw the answer (and marked its SMS sent) finds the message
  # already among the events (the other order raced a test reading them at once, crash-hangup).
  $s->submit_sm_resp(seq => $pdu->{seq}, message_id => $id);

  if (($pdu->{registered_delivery} & 0x03) && !$opt{'no-receipts'}) {
    select(undef, undef, undef, $opt{'receipt-delay'});
    my $now = strftime('%y%m%d%H%M', gmtime);
    my $stat = $opt{'receipt-stat'};
    my %states = (ENROUTE => 1, DELIVRD => 2, EXPIRED => 3, DELETED => 4, UNDELIV => 5, ACCEPTD => 6, UNKNOWN => 7, REJECTD => 8);
    my $err = $stat eq 'DELIVRD' ? '000' : '001';
    my $text = "id:$id sub:001 dlvrd:" . ($stat eq 'DELIVRD' ? '001' : '000')
      . " submit date:$now done date:$now stat:$stat err:$err text:";
    $s->deliver_sm(source_addr => $pdu->{destination_addr}, destination_addr => $pdu->{source_addr},
                   esm_class => 0x04, data_coding => 0, short_message => $text,
                   receipted_message_id => "$id\0", message_state => pack('C', $states{$stat} // 7), async => 1);
    emit('receipt', message_id => $id, stat => $stat);
  }
}
